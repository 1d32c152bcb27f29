"""`python -m evaluation.card_ranker`: train the card ranker (app/agent/card_ranker.py) on the
tuning authors (kb/questions), and report it on the held-out authors.

1. Runs the production agent over every author's questions (conversations turn by turn,
   with their history) and records, for each turn, the cards retrieval over-fetched and what
   may lift each one (app.agent.ranking.card_signals). A tuning question is asked as a new
   author's would be: its own author's example questions are left out.
2. Each candidate card is a row of app.agent.card_ranker.FEATURES, labelled 1 when it answers
   a covered part of the turn (the part's card, or a card of its `also`), else 0. Turns with
   no covered part, no answering card among the candidates, or an emergency (whose cards come
   first whatever the ranker says) are left out.
3. A card just added to the knowledge base has no example questions yet. So that the model
   learns what that is worth, each tuning turn is also trained on twice more, each time with
   the example questions of one candidate drawn at random masked (`no_ex`).
4. A class-balanced logistic regression; C by leave-one-author-out cross-validation of the
   top-1 card. Prints the top-1 card of the hand-set lifts against the learned ranker, per
   author, with the answering card's example questions masked too, each feature's weight and
   what dropping each group of features costs.

The held-out authors (tests/eval/authors) and the fresh sets are only measured. `make models`
runs this first: the sentence scorer, the answerability and the part models read the ranking.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from app.agent import nodes
from app.agent.card_ranker import FEATURES, RANKER_PATH, CardSignals, features, hand_score
from app.core.config import settings_from_environment
from evaluation.authored import Item, load_authors
from evaluation.quality import build_agent

C_GRID = (0.03, 0.1, 0.3, 1.0, 3.0)
# groups of features dropped together in the ablation
GROUPS = {
    "retrieval (rank, gap_rank)": ("rank", "gap_rank"),
    "example questions (ex, gap_ex)": ("ex", "gap_ex"),
    "lexical (lex, gap_lex)": ("lex", "gap_lex"),
    "names (about, general_named)": ("about", "general_named"),
    "no example questions (no_ex)": ("no_ex",),
    "conversation (context, earlier)": ("context", "earlier"),
    "a follow-up's own words (ex_own, gap_own)": ("ex_own", "gap_own"),
    "another medicine's card (other_medicine)": ("other_medicine",),
    "known questions (bank)": ("bank",),
}


@dataclass
class Turn:
    author: str
    split: str
    id: str
    follow_up: bool
    general: bool  # every answering card is about no medicine
    cards: list[str]
    x: np.ndarray  # FEATURES per candidate
    hand: np.ndarray  # the hand-set lifts' score per candidate
    y: np.ndarray  # 1: the card answers
    candidates: list[Any]
    signals: CardSignals

    def masked(self, card: str) -> Turn:
        """The same turn with `card`'s example questions masked, as a card just added."""
        known = self.signals.example_cards
        cards = frozenset(self.signals.examples) if known is None else known
        signals = replace(
            self.signals,
            examples={c: v for c, v in self.signals.examples.items() if c != card},
            examples_own=None
            if self.signals.examples_own is None
            else {c: v for c, v in self.signals.examples_own.items() if c != card},
            example_cards=cards - {card},
        )
        return replace(self, x=features(self.candidates, signals), signals=signals)


def record(agent: Any, authors: dict[str, list[Item]]) -> list[Turn]:
    seen: list[tuple[list[Any], CardSignals]] = []
    original: Callable[..., Any] = getattr(nodes, "rerank")  # noqa: B009

    def recording(candidates: list[Any], signals: CardSignals, top_k: int, ranker: Any) -> Any:
        seen.append(([c.model_copy() for c in candidates], signals))
        return original(candidates, signals, top_k, ranker)

    setattr(nodes, "rerank", recording)  # noqa: B010
    out: list[Turn] = []
    try:
        for author, items in authors.items():
            for item in items:
                history: list[dict[str, Any]] = []
                agent.deps.sentences.exclude_author = author if item.split == "tune" else None
                for n, turn in enumerate(item.as_turns(), start=1):
                    seen.clear()
                    state = agent.ask(turn.question, top_k=5, history=history or None)
                    cited = list(state.get("citations", []))
                    history.append({"question": turn.question, "citations": cited})
                    gold = {c for p in turn.parts if p.covered for c in p.cards}
                    if not seen or not gold or state.get("emergency"):
                        continue
                    candidates, signals = seen[0]
                    ids = [c.id for c in candidates]
                    y = np.array([c in gold for c in ids], dtype=int)
                    if not y.any():
                        continue
                    out.append(
                        Turn(
                            author,
                            item.split,
                            item.id if item.kind != "conversation" else f"{item.id}#{n}",
                            turn.follow_up,
                            all(c not in signals.medicine_cards for c in gold),
                            ids,
                            features(candidates, signals),
                            hand_score(candidates, signals),
                            y,
                            candidates,
                            signals,
                        )
                    )
    finally:
        setattr(nodes, "rerank", original)  # noqa: B010
        agent.deps.sentences.exclude_author = None
    return out


def with_masks(turns: list[Turn], seed: int = 24, copies: int = 2) -> list[Turn]:
    """Each turn, and `copies` copies each with one candidate's example questions masked, the
    candidate drawn at random: an answering card is masked as often as it would be a new card
    by chance, so the model learns what a missing example is worth, not that it marks the
    answer."""
    rng = random.Random(seed)
    out = []
    for t in turns:
        out.append(t)
        out += [t.masked(rng.choice(t.cards)) for _ in range(copies)]
    return out


def masked_gold(turns: list[Turn]) -> list[Turn]:
    """Each turn with its first answering card's example questions masked."""
    return [t.masked(next(c for c, y in zip(t.cards, t.y, strict=True) if y)) for t in turns]


def masked_other(turns: list[Turn], seed: int = 6) -> list[Turn]:
    """Each turn with the example questions of one card that does not answer masked."""
    rng = random.Random(seed)
    out = []
    for t in turns:
        other = [c for c, y in zip(t.cards, t.y, strict=True) if not y]
        out.append(t.masked(rng.choice(other)) if other else t)
    return out


def fit(turns: list[Turn], c: float, keep: list[int]) -> tuple[Any, Any]:
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    x = np.vstack([t.x[:, keep] for t in turns])
    y = np.concatenate([t.y for t in turns])
    scaler = StandardScaler().fit(x)
    lr = LogisticRegression(C=c, max_iter=5000, class_weight="balanced")
    lr.fit(scaler.transform(x), y)
    return scaler, lr


def top1(turns: list[Turn], model: tuple[Any, Any] | None, keep: list[int]) -> float:
    """The share of turns whose first card answers (model None: the hand-set lifts)."""
    if not turns:
        return float("nan")
    right = 0
    for t in turns:
        if model is None:
            scores = t.hand
        else:
            scaler, lr = model
            scores = lr.decision_function(scaler.transform(t.x[:, keep]))
        right += int(t.y[int(np.argmax(scores))])
    return right / len(turns)


def leave_one_author_out(turns: list[Turn], c: float, keep: list[int]) -> float:
    """Top 1 of each tuning author's turns, trained on the others' (with their masks)."""
    authors = sorted({t.author for t in turns})
    right = 0.0
    for a in authors:
        held = [t for t in turns if t.author == a]
        model = fit(with_masks([t for t in turns if t.author != a]), c, keep)
        right += top1(held, model, keep) * len(held)
    return right / len(turns)


def to_json(model: tuple[Any, Any], c: float, note: str) -> dict[str, Any]:
    scaler, lr = model
    return {
        "features": list(FEATURES),
        "mean": [float(v) for v in scaler.mean_],
        "scale": [float(v) for v in scaler.scale_],
        "coef": [float(v) for v in lr.coef_[0]],
        "intercept": float(lr.intercept_[0]),
        "C": c,
        "trained_on": note,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.card_ranker", description=__doc__)
    parser.add_argument("--dry-run", action="store_true", help="report only; write nothing")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    authors = load_authors()
    # the agent is built without the packaged ranker: the recorded histories do not depend
    # on a past model, and a model trained on other features does not stop its own retraining
    import app.composition

    setattr(app.composition, "load_card_ranker", lambda: None)  # noqa: B010
    with tempfile.TemporaryDirectory(prefix="rag-card-ranker-") as tmp:
        agent = build_agent(settings_from_environment(), Path(tmp))
        turns = record(agent, authors)
    tune = [t for t in turns if t.split == "tune"]
    test = [t for t in turns if t.split == "test"]
    every = list(range(len(FEATURES)))
    scores = {c: leave_one_author_out(tune, c, every) for c in C_GRID}
    best = max(scores, key=lambda c: (scores[c], -abs(np.log(c))))
    print("C, leave-one-author-out top-1 on the tuning authors:", scores)
    model = fit(with_masks(tune), best, every)
    print(f"\n{len(tune)} tuning turns, {len(test)} held-out turns; C={best}\n")
    print("| authors | turns | hand-set lifts | learned ranker |")
    print("|---|---|---|---|")
    print(
        f"| tuning, leave one author out | {len(tune)} | {top1(tune, None, every):.3f} | "
        f"{scores[best]:.3f} |"
    )
    for name, chosen in (
        ("held out", lambda t: True),
        ("held out, a general card answers", lambda t: t.general),
        ("held out, follow-ups", lambda t: t.follow_up),
        ("held out, a general card answers a follow-up", lambda t: t.general and t.follow_up),
    ):
        sub = [t for t in test if chosen(t)]
        print(
            f"| {name} | {len(sub)} | {top1(sub, None, every):.3f} | "
            f"{top1(sub, model, every):.3f} |"
        )
    new_card, new_other = masked_gold(test), masked_other(test)
    for name, sub in (
        ("held out, the answering card's example questions masked (a card just added)", new_card),
        ("held out, another card's example questions masked", new_other),
    ):
        print(
            f"| {name} | {len(sub)} | {top1(sub, None, every):.3f} | "
            f"{top1(sub, model, every):.3f} |"
        )
    for author in sorted({t.author for t in test}):
        sub = [t for t in test if t.author == author]
        print(
            f"| {author} | {len(sub)} | {top1(sub, None, every):.3f} | "
            f"{top1(sub, model, every):.3f} |"
        )
    print("\n| feature | standardised weight |\n|---|---|")
    for name, w in sorted(zip(FEATURES, model[1].coef_[0], strict=True), key=lambda x: -abs(x[1])):
        print(f"| {name} | {w:+.2f} |")
    print("\n| without | leave-one-author-out top-1 | held-out top-1 |\n|---|---|---|")
    for group, names in GROUPS.items():
        kept = [i for i, f in enumerate(FEATURES) if f not in names]
        print(
            f"| {group} | {leave_one_author_out(tune, best, kept):.3f} | "
            f"{top1(test, fit(with_masks(tune), best, kept), kept):.3f} |"
        )
    note = (
        f"{len(tune)} tuning turns of kb/questions; leave-one-author-out top-1 "
        f"{scores[best]:.3f} (hand-set lifts {top1(tune, None, every):.3f}); held-out authors "
        f"{top1(test, model, every):.3f} ({top1(test, None, every):.3f}); with the answering "
        f"card's example questions masked {top1(new_card, model, every):.3f}"
    )
    if not args.dry_run:
        RANKER_PATH.write_text(json.dumps(to_json(model, best, note), indent=1) + "\n")
        print(f"\nwritten: {RANKER_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
