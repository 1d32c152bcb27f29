"""`python -m evaluation.answerability`: train the answerability model on the tuning half of
the golden set (and of the one-point questions of tests/eval/sentences.yaml, all covered,
and the uncovered aspects and look-alikes of tests/eval/uncovered.yaml, all tuning) and
report it on the test half.

Runs the production agent over every golden case, takes the signals its decision step
computed (app.agent.answerability.FEATURES), fits a class-balanced logistic regression
(scikit-learn) on the tuning half, and picks the decision threshold on the tuning half: the
highest one that wrongly refuses at most MAX_FALSE_REFUSALS of the in-scope questions.
Writes app/agent/answerability_model.json; prints each signal alone (its best single
threshold on the tuning half) next to the model, on both halves.
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

from app.agent.answerability import (
    BANK_PATH,
    FEATURES,
    MODEL_PATH,
    QuestionBank,
    load_model,
)
from app.core.config import settings_from_environment
from app.core.vocabulary import vocabulary
from app.safety.pii import clean_question
from evaluation.authored import load_authors
from evaluation.golden import UNCOVERED, GoldenCase, load_golden, load_sentences
from evaluation.quality import ask_golden, build_agent

# Chosen by 5-fold cross-validation within the tuning half (3 shuffles; 281 cases after the
# third author's 150 joined it, 2026-12-01): held-out out-of-scope refused / in-scope refused
# were 0.758 / 0.013 when the threshold refused no in-scope question of the training folds,
# 0.820 / 0.019 at 1%, 0.841 / 0.022 at 2% and 0.867 / 0.035 at 3% (C=0.3; C=1.0 within
# 0.01 of these, and a little more false refusals). 2% is the largest budget whose held-out
# false refusals stay under the 0.03 target.
# Checked again on 2026-12-06 (c1 joined; folds by author, 3,179 tuning cases): the threshold
# picked in sample at 0.015 (0.1189) refuses 0.016 of the in-scope questions out of fold, the
# one picked out of fold 0.1112; 0.02 out of fold (0.1548) would refuse 0.036 of the held-out
# authors' in-scope first turns, over the target. The threshold is not the lever; the
# signals are.
MAX_FALSE_REFUSALS = 0.015
C = 0.3


def one_point_cases() -> list[GoldenCase]:
    """The questions of tests/eval/sentences.yaml as covered golden cases (each about one point
    of its card), in both halves: the tuning half trains and joins the bank, the test half is
    only measured."""
    return [
        GoldenCase(
            id=c.id,
            kind="narrow",
            question=c.question,
            split=c.split,
            must_cite_one_of=[c.card],
        )
        for c in load_sentences()
    ]


def author_cases() -> list[GoldenCase]:
    """The single questions (and first turns) of every author's set (issue 24), as golden
    cases: a question with a covered part is in scope (the covered part is answered, the
    rest named); an out-of-scope one is near-domain. The tuning authors (kb/questions) train;
    the held-out ones (tests/eval/authors) are only measured. They do not join the bank."""
    out = []
    for items in load_authors().values():
        for item in items:
            for n, turn in enumerate(item.as_turns(), start=1):
                if turn.follow_up:
                    continue
                cards = list(dict.fromkeys(c for p in turn.parts if p.covered for c in p.cards))
                case_id, question, split = f"{item.id}#{n}", turn.question, item.split
                if cards:
                    out.append(
                        GoldenCase(
                            id=case_id,
                            kind="narrow",
                            question=question,
                            split=split,
                            must_cite_one_of=cards,
                        )
                    )
                else:
                    out.append(
                        GoldenCase(
                            id=case_id,
                            kind="out_of_scope",
                            question=question,
                            split=split,
                            expect_refusal=True,
                            scope="near_domain",
                        )
                    )
    return out


def ask_cases(agent: Any, cases: list[GoldenCase]) -> list[dict[str, Any]]:
    """ask_golden, with a tuning author's question scored as a new author's would be: its
    own author's example questions left out of the example-question signal."""
    tune_authors = {a for a, items in load_authors().items() if items and items[0].split == "tune"}
    rows = []
    for case in cases:
        author = case.id.split("-", 1)[0] if "#" in case.id else None
        agent.deps.sentences.exclude_author = author if author in tune_authors else None
        rows += ask_golden(agent, [case])
    agent.deps.sentences.exclude_author = None
    return rows


def bank_text(question: str) -> str:
    """A question as the decision embeds it (personal data out, names normalised)."""
    return vocabulary().normalise(clean_question(question))


def write_bank(cases: list[GoldenCase], path: Path = BANK_PATH) -> list[str]:
    held_out = {c.question for c in cases if c.split == "test"}
    tune = [c for c in cases if c.split == "tune" and c.question not in held_out]
    texts = [bank_text(c.question) for c in tune]
    data = {
        "source": "tests/eval/golden.yaml, tests/eval/sentences.yaml: split=tune (never test)",
        "questions": [
            {
                "id": c.id,
                "text": t,
                "covered": c.kind != "out_of_scope",
                "cards": list(c.must_cite_one_of),
            }
            for c, t in zip(tune, texts, strict=True)
        ],
    }
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return [c.id for c in tune]


def with_bank_features(
    rows: list[dict[str, Any]], cases: list[GoldenCase], bank: QuestionBank, order: list[str]
) -> None:
    """Recompute the question-bank signals leaving each tuning case out of its own bank."""
    index = {cid: i for i, cid in enumerate(order)}
    for row, case in zip(rows, cases, strict=True):
        if case.id in index:
            vector = bank.vectors[index[case.id]]
            row["signals"].update(bank.features(vector, exclude=index[case.id]))
        else:
            row["signals"].update(bank.features(bank._embed([bank_text(case.question)])[0]))


def matrix(rows: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([[float(r["signals"][f]) for f in FEATURES] for r in rows])
    y = np.array([r["kind"] != "out_of_scope" for r in rows], dtype=int)
    return x, y


def rates(p: np.ndarray, y: np.ndarray, threshold: float) -> tuple[float, float]:
    """(out-of-scope refused, in-scope wrongly refused) at this threshold."""
    refused = p < threshold
    return float(refused[y == 0].mean()), float(refused[y == 1].mean())


def pick_threshold(p: np.ndarray, y: np.ndarray) -> float:
    best = 0.0
    for t in np.unique(np.round(p, 4)):
        _, false_refusals = rates(p, y, float(t))
        if false_refusals <= MAX_FALSE_REFUSALS:
            best = max(best, float(t))
    return best


def single_signals(
    x: np.ndarray, y: np.ndarray, xt: np.ndarray, yt: np.ndarray
) -> list[dict[str, Any]]:
    """Each signal alone, thresholded on the tuning half like the model."""
    out = []
    for j, name in enumerate(FEATURES):
        sign = 1.0 if x[y == 1, j].mean() >= x[y == 0, j].mean() else -1.0
        t = pick_threshold(sign * x[:, j], y)
        out.append(
            {
                "signal": name,
                "tune": rates(sign * x[:, j], y, t),
                "test": rates(sign * xt[:, j], yt, t),
            }
        )
    return out


def train(rows: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    # An escalated question never reaches the decision (the emergency answer comes first),
    # so its signals say nothing about coverage: "qual o telefone do CVV pra quem tá com
    # pensamento de se matar?" is in scope with p 0.10, and it set the threshold.
    tune = [r for r in rows if r["split"] == "tune" and not r["emergency"]]
    test = [r for r in rows if r["split"] == "test" and not r["emergency"]]
    x, y = matrix(tune)
    xt, yt = matrix(test)
    scaler = StandardScaler().fit(x)
    model = LogisticRegression(C=C, class_weight="balanced", max_iter=2000)
    model.fit(scaler.transform(x), y)
    p = model.predict_proba(scaler.transform(x))[:, 1]
    pt = model.predict_proba(scaler.transform(xt))[:, 1]
    threshold = pick_threshold(p, y)
    params = {
        "features": list(FEATURES),
        "mean": scaler.mean_.round(6).tolist(),
        "scale": scaler.scale_.round(6).tolist(),
        "coef": model.coef_[0].round(6).tolist(),
        "intercept": round(float(model.intercept_[0]), 6),
        "threshold": round(threshold, 4),
        "trained_on": f"tests/eval/golden.yaml + sentences.yaml split=tune ({len(tune)} cases)",
    }
    report = {
        "tune": dict(zip(("oos_refused", "inscope_refused"), rates(p, y, threshold), strict=True)),
        "test": dict(
            zip(("oos_refused", "inscope_refused"), rates(pt, yt, threshold), strict=True)
        ),
        "signals": single_signals(x, y, xt, yt),
        "coefficients": dict(zip(FEATURES, params["coef"], strict=True)),
    }
    return params, report


def bootstrap_model(path: Path) -> None:
    """A neutral model for the first run after the features changed (the agent needs one to
    start; training then replaces it)."""
    try:
        if json.loads(path.read_text(encoding="utf-8"))["features"] == list(FEATURES):
            return
    except (OSError, ValueError, KeyError):
        pass
    n = len(FEATURES)
    neutral = {
        "features": list(FEATURES),
        "mean": [0.0] * n,
        "scale": [1.0] * n,
        "coef": [0.0] * n,
        "intercept": 0.0,
        "threshold": 0.5,
        "trained_on": "bootstrap",
    }
    path.write_text(json.dumps(neutral, indent=1) + "\n", encoding="utf-8")
    load_model.cache_clear()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.answerability", description=__doc__)
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    # u1/u2 (tests/eval/uncovered.yaml): uncovered aspects of covered medicines beside their
    # covered look-alikes, all tuning; the held-out authors' out of scope refused 0.601 ->
    # 0.682, their in-scope refused 0.022 -> 0.031 (docs/answers.md)
    cases = load_golden() + load_golden(UNCOVERED) + one_point_cases()
    order = write_bank(cases)
    cases += author_cases()
    bootstrap_model(MODEL_PATH)
    with tempfile.TemporaryDirectory(prefix="rag-answerability-") as tmp:
        agent = build_agent(settings_from_environment(), Path(tmp))
        rows = ask_cases(agent, cases)
        with_bank_features(rows, cases, agent.deps.bank, order)
    params, report = train(rows)
    args.out.write_text(json.dumps(params, indent=1) + "\n", encoding="utf-8")
    print(
        "| signal | tune: out-of-scope refused | tune: in-scope refused | "
        "test: out-of-scope refused | test: in-scope refused |"
    )
    print("|---|---|---|---|---|")
    for s in report["signals"]:
        print(
            f"| {s['signal']} | {s['tune'][0]:.3f} | {s['tune'][1]:.3f} | "
            f"{s['test'][0]:.3f} | {s['test'][1]:.3f} |"
        )
    t, x = report["tune"], report["test"]
    print(
        f"| **logistic regression** | {t['oos_refused']:.3f} | {t['inscope_refused']:.3f} | "
        f"{x['oos_refused']:.3f} | {x['inscope_refused']:.3f} |"
    )
    print("\ncoefficients (standardised):", json.dumps(report["coefficients"]))
    print(f"threshold {params['threshold']}; model written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
