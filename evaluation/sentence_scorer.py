"""`python -m evaluation.sentence_scorer`: train the question-intent model and the sentence
scorer on the tuning authors (kb/questions), and report them on the held-out authors.

1. Runs the production agent over every author's questions (conversations turn by turn,
   with their history), recording what the extractive generator scored: the question and
   the quotable sentences of the retrieved cards.
2. Intent model (app/agent/intent_model.json): one logistic regression per intent over the
   question's embedding, each question labelled with the intents of the sentences that
   answer it (kb/sentences.yaml). The tuning questions' intents that the scorer trains on
   are predicted out of fold, by author, as a new author's would be.
3. Sentence scorer (app/agent/sentence_scorer.json): a class-balanced logistic regression
   over app.agent.scorer.FEATURES. A sentence an author listed as answering is a positive;
   every other sentence of the retrieved cards is a negative, except those the author
   marked `related`. The example-question feature of a tuning question leaves its own
   author out. C is chosen by leave-one-author-out cross-validation.
4. Prints, per author: how often the best-scored sentence answers (top 1), the
   cross-validated figures, each feature's weight and what dropping it costs, and a sweep
   of the composition thresholds of app.agent.compose on the tuning authors.

The held-out authors (tests/eval/authors) are only measured.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.agent import compose as composition
from app.agent.generators import ExtractiveGenerator, Focus
from app.agent.intent import INTENT_MODEL_PATH, IntentModel, load_intent_model
from app.agent.scorer import FEATURES, SCORER_PATH, Candidate, Question, SentenceScorer, features
from app.agent.sentence_labels import INTENTS, sentence_labels
from app.core.config import settings_from_environment
from app.core.text import fold
from evaluation.authored import Item, Part, card_sentences, load_authors
from evaluation.quality import build_agent

C_GRID = (0.03, 0.1, 0.3, 1.0, 3.0)
INTENT_C = 1.0


@dataclass
class Asked:
    """One recorded turn: who asked it, its labels, what the generator scored."""

    author: str
    split: str
    kind: str
    parts: list[Part]
    q: Question
    pool: list[Candidate]
    focus: Focus
    folded: np.ndarray

    def gold(self) -> set[str]:
        return {s for p in self.parts if p.covered for s in p.gold}

    def related(self) -> set[str]:
        return {s for p in self.parts if p.covered for s in p.related}

    def labels(self) -> np.ndarray:
        """1 answers, 0 does not, -1 left out (related)."""
        gold, related = self.gold(), self.related()
        return np.array(
            [1 if c.sid in gold else (-1 if c.sid in related else 0) for c in self.pool]
        )


def record(agent: Any, authors: dict[str, list[Item]]) -> list[Asked]:
    generator: ExtractiveGenerator = agent.deps.generator
    generator.record = []
    out: list[Asked] = []
    for author, items in authors.items():
        for item in items:
            history: list[dict[str, Any]] = []
            # a tuning question is asked as a new author's would be: its author's example
            # questions left out of the card ranking and the sentence scores
            generator.exclude_author = author if item.split == "tune" else None
            for turn in item.as_turns():
                before = len(generator.record)
                state = agent.ask(turn.question, top_k=5, history=history or None)
                history.append({"question": turn.question, "citations": state.get("citations", [])})
                if len(generator.record) == before or not any(p.covered for p in turn.parts):
                    continue
                q, pool, focus = generator.record[-1]
                out.append(
                    Asked(author, item.split, item.kind, turn.parts, q, pool, focus, q.folded)
                )
                if len(focus.clauses) == len(turn.parts) >= 2:
                    # each part of the question as the scorer reads it, with its own labels
                    for cq, part in zip(focus.clauses, turn.parts, strict=True):
                        out.append(
                            Asked(author, item.split, "clause", [part], cq, pool, focus, cq.folded)
                        )
    generator.record = None
    generator.exclude_author = None
    return out


# --- intents ----------------------------------------------------------------------------


def intent_targets(rows: list[Asked]) -> np.ndarray:
    labels = sentence_labels()
    known = card_sentences()
    y = np.zeros((len(rows), len(INTENTS)))
    for i, r in enumerate(rows):
        for sid in r.gold():
            label = labels.get(sid, known[sid])
            for name in label.intents if label else ():
                y[i, INTENTS.index(name)] = 1.0
    return y


def fit_intents(x: np.ndarray, y: np.ndarray, model_id: str) -> IntentModel:
    from sklearn.linear_model import LogisticRegression

    coef = np.zeros((len(INTENTS), x.shape[1]))
    intercept = np.zeros(len(INTENTS))
    for j in range(len(INTENTS)):
        if y[:, j].min() == y[:, j].max():
            intercept[j] = -10.0 if y[0, j] == 0 else 10.0
            continue
        lr = LogisticRegression(C=INTENT_C, max_iter=2000).fit(x, y[:, j])
        coef[j], intercept[j] = lr.coef_[0], lr.intercept_[0]
    return IntentModel(list(INTENTS), coef, intercept, model_id)


def intent_report(model: IntentModel, x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    p = np.array([model.predict(v) for v in x])
    top = p.argmax(axis=1)
    return {
        "n": len(x),
        "top_intent_right": float(np.mean(y[np.arange(len(y)), top] > 0)),
        "micro_f1@0.5": _f1(p >= 0.5, y > 0),
    }


def _f1(pred: np.ndarray, gold: np.ndarray) -> float:
    tp = float((pred & gold).sum())
    return 2 * tp / max(float(pred.sum() + gold.sum()), 1.0)


# --- the scorer -------------------------------------------------------------------------


def matrices(
    rows: list[Asked], generator: ExtractiveGenerator, leave_author_out: bool
) -> list[tuple[np.ndarray, np.ndarray]]:
    bank = generator.examples()
    out = []
    for r in rows:
        x = features(
            r.q,
            r.pool,
            generator.vectors.get,
            bank,
            exclude_author=r.author if leave_author_out else None,
        )
        out.append((x, r.labels()))
    return out


def fit_scorer(pairs: list[tuple[np.ndarray, np.ndarray]], c: float, keep: list[int]) -> Any:
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    x = np.vstack([m[y >= 0][:, keep] for m, y in pairs])
    y = np.concatenate([y[y >= 0] for _, y in pairs])
    scaler = StandardScaler().fit(x)
    lr = LogisticRegression(C=c, class_weight="balanced", max_iter=3000).fit(scaler.transform(x), y)
    return scaler, lr


def to_json(scaler: Any, lr: Any, keep: list[int], note: str) -> dict[str, Any]:
    """The model over every FEATURE (a dropped feature gets weight 0)."""
    n = len(FEATURES)
    mean, scale, coef = [0.0] * n, [1.0] * n, [0.0] * n
    for j, k in enumerate(keep):
        mean[k] = round(float(scaler.mean_[j]), 6)
        scale[k] = round(float(scaler.scale_[j]), 6) or 1.0
        coef[k] = round(float(lr.coef_[0][j]), 6)
    return {
        "features": list(FEATURES),
        "mean": mean,
        "scale": scale,
        "coef": coef,
        "intercept": round(float(lr.intercept_[0]), 6),
        "trained_on": note,
    }


def top1(pairs: list[tuple[np.ndarray, np.ndarray]], scorer: SentenceScorer) -> float:
    hits = []
    for x, y in pairs:
        if not (y == 1).any():
            hits.append(0.0)
            continue
        p = scorer.predict(x)
        hits.append(float(y[int(np.argmax(p))] == 1))
    return float(np.mean(hits)) if hits else float("nan")


def cross_validate(
    rows: list[Asked], pairs: list[tuple[np.ndarray, np.ndarray]], c: float, keep: list[int]
) -> float:
    """Top 1 with each tuning author held out of training in turn."""
    authors = sorted({r.author for r in rows})
    hits: list[float] = []
    for held in authors:
        train = [p for r, p in zip(rows, pairs, strict=True) if r.author != held]
        test = [p for r, p in zip(rows, pairs, strict=True) if r.author == held]
        scaler, lr = fit_scorer(train, c, keep)
        scorer = SentenceScorer(to_json(scaler, lr, keep, "cv"))
        hits += [top1([p], scorer) for p in test]
    return float(np.mean(hits))


# --- composition ------------------------------------------------------------------------


def prepared(
    rows: list[Asked], generator: ExtractiveGenerator, scorer: SentenceScorer
) -> list[tuple[Asked, list[bool], list[composition.Part]]]:
    """Each turn scored once by `scorer` (a tuning question without its author's examples)."""
    generator.scorer = scorer
    out = []
    for r in rows:
        generator.exclude_author = r.author if r.split == "tune" else None
        eligible, parts = generator.prepare(r.q, r.pool, r.focus)
        out.append((r, eligible, parts))
    generator.exclude_author = None
    return out


def composed(
    rows: list[tuple[Asked, list[bool], list[composition.Part]]], generator: ExtractiveGenerator
) -> dict[str, float]:
    """Opens / holds / all parts / lines with the composition of app.agent.compose."""
    opens, holds, parts_all, lines = [], [], [], []
    for r, eligible, parts in rows:
        result = generator.finish(r.pool, eligible, parts, r.focus)
        chosen = result.chosen
        covered = [p for p in r.parts if p.covered]
        answered = [any(c.sid in p.gold for c in chosen) for p in covered]
        if r.kind in ("one_point", "complaint", "story"):
            opens.append(any(c.sid in r.gold() for c in chosen[: result.lead]))
            holds.append(any(answered))
        elif r.kind in ("two_part", "partly_covered"):
            parts_all.append(all(answered))
        lines.append(len(chosen))
    return {
        "opens": float(np.mean(opens)),
        "holds": float(np.mean(holds)),
        "all_parts": float(np.mean(parts_all)) if parts_all else float("nan"),
        "lines": float(np.mean(lines)),
    }


def sweep(
    rows: list[tuple[Asked, list[bool], list[composition.Part]]], generator: ExtractiveGenerator
) -> None:
    saved = (composition.EXTRA_MIN, composition.EXTRA_RATIO, composition.PART_MIN)
    print("\n| EXTRA_MIN | EXTRA_RATIO | PART_MIN | opens | holds | all parts | lines |")
    print("|---|---|---|---|---|---|---|")
    for extra in (0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        for ratio in (0.5, 0.7, 0.9):
            for part in (0.1, 0.2, 0.3, 0.4):
                composition.EXTRA_MIN, composition.EXTRA_RATIO, composition.PART_MIN = (
                    extra,
                    ratio,
                    part,
                )
                m = composed(rows, generator)
                print(
                    f"| {extra} | {ratio} | {part} | {m['opens']:.3f} | {m['holds']:.3f} | "
                    f"{m['all_parts']:.3f} | {m['lines']:.2f} |"
                )
    composition.EXTRA_MIN, composition.EXTRA_RATIO, composition.PART_MIN = saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.sentence_scorer", description=__doc__
    )
    parser.add_argument("--sweep", action="store_true", help="sweep the composition thresholds")
    parser.add_argument("--ablation", action="store_true", help="what dropping each feature costs")
    parser.add_argument("--dump", type=Path, help="also pickle the recorded turns here")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    authors = load_authors()
    settings = settings_from_environment()
    with tempfile.TemporaryDirectory(prefix="rag-scorer-") as tmp:
        agent = build_agent(settings, Path(tmp))
        generator: ExtractiveGenerator = agent.deps.sentences
        embedder = agent.deps.retriever.embedder
        rows = record(agent, authors)
        if args.dump:
            import pickle

            args.dump.write_bytes(pickle.dumps(rows))
        tune = [r for r in rows if r.split == "tune"]
        test = [r for r in rows if r.split == "test"]
        # 2. intents: out of fold for the tuning rows (by author), the final model for the rest
        x_all = embedder.embed([fold(r.q.text) for r in rows])
        y_all = intent_targets(rows)
        is_tune = np.array([r.split == "tune" for r in rows])
        final = fit_intents(x_all[is_tune], y_all[is_tune], embedder.model_id)
        oof = np.zeros_like(y_all)
        for held in sorted({r.author for r in tune}):
            fold_rows = np.array([r.split == "tune" and r.author == held for r in rows])
            held_model = fit_intents(x_all[is_tune & ~fold_rows], y_all[is_tune & ~fold_rows], "")
            oof[fold_rows] = [held_model.predict(v) for v in x_all[fold_rows]]
            print(
                f"intents, author {held} held out:",
                intent_report(held_model, x_all[fold_rows], y_all[fold_rows]),
            )
        print("intents, held-out authors:", intent_report(final, x_all[~is_tune], y_all[~is_tune]))
        for i, r in enumerate(rows):
            r.q.intents = oof[i] if r.split == "tune" else final.predict(x_all[i])
        INTENT_MODEL_PATH.write_text(json.dumps(final.to_json()) + "\n", encoding="utf-8")
        load_intent_model.cache_clear()
        # 3. the scorer
        pairs_tune = matrices(tune, generator, leave_author_out=True)
        pairs_test = matrices(test, generator, leave_author_out=False)
        keep = list(range(len(FEATURES)))
        cv = {c: cross_validate(tune, pairs_tune, c, keep) for c in C_GRID}
        best_c = max(cv, key=lambda c: cv[c])
        print("\nleave-one-author-out top 1 by C:", {c: round(v, 3) for c, v in cv.items()})
        scaler, lr = fit_scorer(pairs_tune, best_c, keep)
        note = (
            f"kb/questions authors {sorted({r.author for r in tune})} "
            f"({len(tune)} questions), C={best_c}"
        )
        model = to_json(scaler, lr, keep, note)
        scorer = SentenceScorer(model)
        print("\n| author | questions | top 1 |\n|---|---|---|")
        for author in sorted({r.author for r in rows}):
            idx = [i for i, r in enumerate(rows) if r.author == author]
            own = [
                p
                for r, p in zip(tune + test, pairs_tune + pairs_test, strict=True)
                if r.author == author
            ]
            print(f"| {author} | {len(idx)} | {top1(own, scorer):.3f} |")
        print("\n| feature | weight (standardised) |\n|---|---|")
        for name, w in zip(FEATURES, model["coef"], strict=True):
            print(f"| {name} | {w:+.3f} |")
        if args.ablation:
            base = cv[best_c]
            print(f"\n| feature dropped | CV top 1 (all: {base:.3f}) |\n|---|---|")
            for k, name in enumerate(FEATURES):
                rest = [j for j in keep if j != k]
                print(f"| {name} | {cross_validate(tune, pairs_tune, best_c, rest):.3f} |")
        SCORER_PATH.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
        ready = {
            split: prepared([r for r in rs if r.kind != "clause"], generator, scorer)
            for split, rs in (("tune", tune), ("test", test))
        }
        for split, rs in ready.items():
            print(f"composed, {split}:", composed(rs, generator))
        if args.sweep:
            sweep(ready["tune"], generator)
    print(f"\nwritten: {INTENT_MODEL_PATH}, {SCORER_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
