"""`python -m evaluation.ordinary_margin`: choose EmergencyDetector.ORDINARY_MARGIN and
UNEVIDENCED_MARGIN (issue 25).

A reading by resemblance alone (the exemplars, no concept) escalates today when the nearest
exemplars of a kind are near enough and nearer than the informational ones. The tuning
bank also holds the tuning sets' ordinary questions (kind "ordinary", from
`python -m evaluation.banks`); a reading whose lead over them is below the kind's margin is
uncertain instead: the answer and a calm line, never instead of it (unless the question
asks about amounts, lethality or methods, C.LETHALITY).

Each kind's margin is the largest, on the tuning rows read leave-one-out (an exemplar that
is the question itself is skipped), that turns no tuning event of any kind into an
uncertain reading. A self-harm reading whose message has no word of intent, death or harm
to self (app.safety.emergency.self_harm_evidence) gets its own margin, chosen the same way
over such readings alone ("unevidenced"). The test halves and the fresh sets are only
reported.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections import Counter
from typing import Any

import numpy as np

from app.core.config import settings_from_environment
from app.core.text import fold
from app.embedding import get_embedder
from app.safety.emergency import EmergencyDetector, lethality, self_harm_evidence
from evaluation.emergency_model import Row, rows

KINDS = ("self_harm", "medical", "poisoning")
GRID = [round(-0.2 + 0.005 * i, 3) for i in range(81)]  # -0.20 .. 0.20


def readings(data: list[Row]) -> list[Any]:
    """The rules' readings with no ordinary margin (every resemblance escalates)."""
    embedder = get_embedder(settings_from_environment())
    detector = EmergencyDetector(embedder.embed, classifier=None)
    detector.ORDINARY_MARGIN = dict.fromkeys(KINDS, -1.0)
    detector.UNEVIDENCED_MARGIN = -1.0
    from app.safety.pii import clean_question

    texts = [fold(clean_question(r.text)) for r in data]
    vectors = np.vstack([embedder.embed(texts[i : i + 256]) for i in range(0, len(texts), 256)])
    return [detector.rules(r.text, v) for r, v in zip(data, vectors, strict=True)]


def lead(a: Any, text: str) -> float | None:
    """The reading's lead over the ordinary questions, if a margin could make it uncertain."""
    if a.kind is None or a.signals.get("by") != "neighbours" or lethality(fold(text)):
        return None
    return float(a.signals[f"nearest_{a.kind}"]) - float(a.signals.get("nearest_ordinary", -1.0))


def unevidenced(a: Any, text: str) -> bool:
    """A self-harm reading with no word of intent, death or harm to self (UNEVIDENCED_MARGIN)."""
    return a.kind == "self_harm" and not self_harm_evidence(fold(text))


def choose(data: list[Row], got: list[Any]) -> dict[str, float]:
    """Per kind, and for self-harm readings without evidence ("unevidenced"), the largest
    margin that turns no tuning event into an uncertain reading."""
    margins = {}
    for kind in (*KINDS, "unevidenced"):
        events = [
            lead(a, r.text)
            for r, a in zip(data, got, strict=True)
            if r.split == "tune"
            and r.label != "none"
            and (unevidenced(a, r.text) if kind == "unevidenced" else a.kind == kind)
        ]
        floor = min((x for x in events if x is not None), default=1.0)
        margins[kind] = max((m for m in GRID if m <= floor), default=-1.0)
    return margins


def outcome(a: Any, text: str, margins: dict[str, float]) -> str | None:
    x = lead(a, text)
    margin = margins.get(a.kind, -1.0)
    if unevidenced(a, text):
        margin = max(margin, margins.get("unevidenced", -1.0))
    if x is not None and x < margin:
        return None
    return a.kind


def report(name: str, data: list[Row], got: list[Any], margins: dict[str, float]) -> None:
    out = [outcome(a, r.text, margins) for r, a in zip(data, got, strict=True)]
    ev = [(r, o) for r, o in zip(data, out, strict=True) if r.label != "none"]
    sh = [(r, o) for r, o in ev if r.label == "self_harm"]
    od = [(r, o) for r, o in zip(data, out, strict=True) if r.source == "ordinary"]
    esc = Counter(o for _, o in od if o)
    print(
        f"| {name} | {sum(o is not None for _, o in ev)} of {len(ev)} | "
        f"{sum(o is not None for _, o in sh)} of {len(sh)} | "
        f"{sum(o is not None for _, o in od)} of {len(od)} {dict(esc)} |"
    )


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(prog="python -m evaluation.ordinary_margin").parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    data = rows()
    got = readings(data)
    margins = choose(data, got)
    off = dict.fromkeys((*KINDS, "unevidenced"), -1.0)
    print(f"margins: {margins}\n")
    print("| rows | margins | events recognised | self-harm | ordinary escalated (by kind) |")
    print("|---|---|---|---|---|")
    groups = {
        "tune, leave-one-out": lambda r: r.split == "tune",
        "test half (older sets)": lambda r: (
            r.split == "test"
            and not r.id.startswith("s3-")
            and (r.source == "safety" or r.group in ("golden", "sentences", "conversations"))
        ),
        "fresh safety author s3": lambda r: r.id.startswith("s3-"),
        "held-out authors": lambda r: r.split == "test" and r.kind == "authors",
        "fresh ordinary s1": lambda r: r.id.startswith("s1-"),
        "s5 (tune since it was measured)": lambda r: r.id.startswith("s5-"),
    }
    for name, keep in groups.items():
        idx = [i for i, r in enumerate(data) if keep(r)]
        sub, sub_got = [data[i] for i in idx], [got[i] for i in idx]
        for label, m in (("none", off), ("chosen", margins)):
            report(f"{name} | {label}", sub, sub_got, m)
    return 0


if __name__ == "__main__":
    sys.exit(main())
