"""The sentence scorer's features and model (app.agent.scorer)."""

from __future__ import annotations

import numpy as np

from app.agent.examples import Example, ExampleBank
from app.agent.scorer import (
    FEATURES,
    Candidate,
    Question,
    SentenceScorer,
    features,
    load_scorer,
)


def unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


VECTORS = {"Tome em jejum.": unit(1, 0, 0), "Evite o sol.": unit(0, 1, 0)}


def test_the_features_tell_the_sentence_whose_examples_match() -> None:
    pool = [
        Candidate(0, 1, 0, "card-001", "Tome em jejum.", n_card=2),
        Candidate(0, 2, 0, "card-001", "Evite o sol.", n_card=2),
    ]
    bank = ExampleBank([Example("posso pegar sol?", ("card-001:02",), "a1")], unit(0, 1, 0)[None])
    q = Question(
        "posso ir à praia?", unit(0.2, 1, 0), unit(0.2, 1, 0), rank_scores={"card-001": 0.5}
    )
    x = features(q, pool, lambda texts: np.stack([VECTORS[t] for t in texts]), bank)
    assert x.shape == (2, len(FEATURES))
    ex, has = FEATURES.index("ex"), FEATURES.index("has_ex")
    assert x[1, ex] > 0.9 and x[1, has] == 1.0 and x[0, has] == 0.0
    # leaving that author out removes the evidence
    x2 = features(q, pool, lambda t: np.stack([VECTORS[s] for s in t]), bank, exclude_author="a1")
    assert x2[1, has] == 0.0


def test_the_trained_model_reads_these_features_and_ranks_the_matching_sentence_first() -> None:
    scorer = load_scorer()
    assert scorer.model["features"] == list(FEATURES)
    x = np.zeros((2, len(FEATURES)))
    x[0, FEATURES.index("ex")] = 0.9
    x[1, FEATURES.index("ex")] = 0.3
    x[1, FEATURES.index("gap_card_ex")] = -0.6
    p = scorer.predict(x)
    assert p[0] > p[1]


def test_the_neutral_scorer_orders_by_similarity_to_what_is_asked() -> None:
    x = np.zeros((2, len(FEATURES)))
    x[:, FEATURES.index("sim_asked")] = [0.2, 0.6]
    p = SentenceScorer.neutral().predict(x)
    assert p[1] > p[0]
