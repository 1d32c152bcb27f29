"""`python -m evaluation.part_model`: train the part model (app/agent/part_model.json) on the
tuning authors' labelled parts (kb/questions), leave-one-author-out.

The part model decides, for a message the whole decision answered, which of its parts
(app.agent.parts.clauses) no card answers, so the answer names them instead of dropping
them without a word (app.agent.partial). Its inputs are what each part's own judgement
measured (app.agent.partial.PART_FEATURES).

Labels come from the authors: a turn whose parts the author labelled one by one, as many as
the message's clauses, gives each clause its part's label, in order; a turn of one covered
part split into several clauses ("Meço no braço direito ou no esquerdo? Tanto faz?") gives
each clause "covered": the follow-on piece is part of the question, not a question the
cards leave open. Other turns give no label.

Each turn is asked of the production agent with the author's own example questions left
out, and with a part model that never names a part, so what is measured is what the
judgement of each part sees before the model acts. The threshold is chosen on the
out-of-author predictions: the lowest one that names at most MAX_COVERED_NAMED of the
covered clauses.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from app.agent import partial
from app.core.config import settings_from_environment
from evaluation.authored import load_authors

MAX_COVERED_NAMED = 0.02
C = 1.0
NEVER: dict[str, Any] = {
    "features": list(partial.PART_FEATURES),
    "mean": [0.0] * len(partial.PART_FEATURES),
    "scale": [1.0] * len(partial.PART_FEATURES),
    "coef": [0.0] * len(partial.PART_FEATURES),
    "intercept": -50.0,
    "threshold": 1.0,
}


def labelled_parts(agent: Any) -> list[dict[str, Any]]:
    """One row per clause of the tuning authors' multi-clause turns: features, label, author."""
    rows: list[dict[str, Any]] = []
    for author, items in load_authors().items():
        if not items or items[0].split != "tune":
            continue
        agent.deps.sentences.exclude_author = author
        for item in items:
            history: list[dict[str, Any]] = []
            for n, turn in enumerate(item.as_turns(), start=1):
                state = agent.ask(turn.question, top_k=5, history=history or None)
                history.append(
                    {"question": turn.question, "citations": list(state.get("citations", []))}
                )
                judged = (state.get("decision") or {}).get("signals", {}).get("parts") or []
                if not judged or state.get("refused"):
                    continue  # the model decides only for a message the decision answers
                if len(turn.parts) == 1 and turn.parts[0].covered:
                    labels = [0] * len(judged)
                elif len(turn.parts) == len(judged):
                    labels = [0 if p.covered else 1 for p in turn.parts]
                else:
                    continue
                for part, label in zip(judged, labels, strict=True):
                    rows.append(
                        {
                            "id": f"{item.id}#{n}",
                            "author": author,
                            "text": part["text"],
                            "label": label,
                            "whole_refused": bool(state.get("refused")),
                            "x": [float(part[f]) for f in partial.PART_FEATURES],
                        }
                    )
    agent.deps.sentences.exclude_author = None
    return rows


def fit(x: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    from sklearn.linear_model import LogisticRegression

    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    lr = LogisticRegression(C=C, class_weight="balanced", max_iter=2000)
    lr.fit((x - mean) / scale, y)
    return {
        "features": list(partial.PART_FEATURES),
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "coef": [round(float(v), 6) for v in lr.coef_[0]],
        "intercept": round(float(lr.intercept_[0]), 6),
    }


def out_of_author(rows: list[dict[str, Any]]) -> np.ndarray:
    """Each row's P(uncovered) from a model trained without its author."""
    x = np.array([r["x"] for r in rows])
    y = np.array([r["label"] for r in rows])
    authors = np.array([r["author"] for r in rows])
    p = np.zeros(len(rows))
    for a in sorted(set(authors)):
        held = authors == a
        model = fit(x[~held], y[~held])
        p[held] = [
            partial.p_uncovered(dict(zip(model["features"], v, strict=True)), model)
            for v in x[held]
        ]
    return p


def choose_threshold(p: np.ndarray, y: np.ndarray) -> float:
    covered = np.sort(p[y == 0])[::-1]
    allowed = int(np.floor(MAX_COVERED_NAMED * len(covered)))
    # above the (allowed+1)-th highest covered score: at most `allowed` covered are named
    return float(covered[allowed]) + 1e-6 if len(covered) > allowed else 0.5


def report(p: np.ndarray, y: np.ndarray, threshold: float) -> dict[str, Any]:
    named = p >= threshold
    return {
        "clauses": int(len(y)),
        "uncovered": int(y.sum()),
        "uncovered_named": round(float(named[y == 1].mean()), 3) if y.sum() else None,
        "covered_named": round(float(named[y == 0].mean()), 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.part_model", description=__doc__)
    parser.add_argument("--out", type=Path, default=partial.PART_MODEL_PATH)
    parser.add_argument("--rows", type=Path, help="also write the labelled rows here")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    from evaluation.quality import build_agent

    partial.load_part_model = lambda path=partial.PART_MODEL_PATH: NEVER  # type: ignore[assignment]
    with tempfile.TemporaryDirectory(prefix="rag-parts-") as tmp:
        agent = build_agent(settings_from_environment(), Path(tmp))
        rows = labelled_parts(agent)
    if args.rows:
        args.rows.write_text(json.dumps(rows, ensure_ascii=False, indent=1))
    y = np.array([r["label"] for r in rows])
    p = out_of_author(rows)
    threshold = choose_threshold(p, y)
    cv = report(p, y, threshold)
    model = fit(np.array([r["x"] for r in rows]), y)
    model["threshold"] = round(threshold, 6)
    model["trained_on"] = f"kb/questions, {len(rows)} clauses of multi-clause turns"
    model["out_of_author"] = cv
    args.out.write_text(json.dumps(model, indent=1) + "\n")
    print(json.dumps({"out_of_author": cv, "threshold": model["threshold"]}, indent=1))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
