"""The learned card ranker (issue 24): its features, the packaged model, and the order it
gives (app.agent.card_ranker)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.agent.card_ranker import (
    FEATURES,
    RANKER_PATH,
    CardRanker,
    CardSignals,
    card_examples,
    features,
    load_card_ranker,
    rank,
)
from app.retrieval.models import ContextChunk
from tests.fakes import context_chunk


def chunk(card: str, score: float) -> ContextChunk:
    c = context_chunk(card, score=score)
    c.rank_score = score
    return c


def test_the_packaged_model_is_trained_on_these_features() -> None:
    ranker = load_card_ranker()
    assert ranker is not None, f"{RANKER_PATH} is missing: python -m evaluation.card_ranker"
    assert ranker.model["features"] == list(FEATURES)
    assert "held-out authors" in ranker.model["trained_on"]


def test_a_model_trained_on_other_features_is_refused_by_name(tmp_path: Path) -> None:
    model = json.loads(RANKER_PATH.read_text(encoding="utf-8"))
    model["features"] = [*model["features"][:-1], "something_else"]
    path = tmp_path / "card_ranker.json"
    path.write_text(json.dumps(model), encoding="utf-8")
    with pytest.raises(ValueError, match="missing other_medicine; extra something_else"):
        CardRanker.load(path)


def test_features_read_the_signals() -> None:
    cards = [chunk("card-003", 0.45), chunk("card-027", 0.35)]
    s = CardSignals(
        about={"card-003"},
        context={"card-027"},
        earlier={"card-003"},
        bank={"card-027": 0.1},
        examples={"card-027": 0.8, "card-003": 0.5},
        lexical={"card-003": 0.2, "card-027": 0.6},
        medicine_cards=frozenset({"card-003"}),
        names_medicine=True,
    )
    x = dict(zip(FEATURES, features(cards, s).T, strict=True))
    assert np.allclose(x["gap_rank"], [0.0, -0.1]) and np.allclose(x["gap_ex"], [-0.3, 0.0])
    assert list(x["about"]) == [1, 0] and list(x["context"]) == [0, 1]
    assert list(x["earlier"]) == [1, 0]
    assert list(x["general_named"]) == [0, 1] and np.allclose(x["bank"], [0.0, 0.1])


def test_a_general_card_the_example_questions_point_to_outranks_the_named_medicine() -> None:
    # "esqueci a metformina no almoço, tomo na janta?": retrieval and the name favour the
    # metformina card; the example questions of card-027 (a missed dose) know "esqueci"
    cards = [chunk("card-003", 0.45), chunk("card-027", 0.33), chunk("card-004", 0.40)]
    s = CardSignals(
        about={"card-003", "card-004"},
        examples={"card-027": 0.82, "card-003": 0.55, "card-004": 0.50},
        lexical={"card-003": 0.3, "card-027": 0.5, "card-004": 0.2},
        medicine_cards=frozenset({"card-003", "card-004"}),
        names_medicine=True,
    )
    ranked = rank(cards, s, 2, load_card_ranker())
    assert [c.id for c in ranked] == ["card-027", "card-003"]
    # the cosine stays for the decision and the reports; rank_score is P(answers)
    assert ranked[0].score == 0.33 and 0.5 < ranked[0].rank_score <= 1.0
    # before the first training, the hand-set lifts keep the named medicine's card first
    assert rank([chunk(c.id, c.score) for c in cards], s, 1, None)[0].id == "card-003"


def test_an_emergencys_cards_come_first_whatever_the_ranker_says() -> None:
    cards = [chunk("card-009", 0.50), chunk("card-018", 0.20)]
    s = CardSignals(examples={"card-009": 0.9}, emergency={"card-018"})
    ranked = rank(cards, s, 2, load_card_ranker())
    assert [c.id for c in ranked] == ["card-018", "card-009"]
    # and rank as sure, so the sentence scorer reads every other card as below them
    assert ranked[0].rank_score == 1.0 > ranked[1].rank_score
    hand = rank([chunk(c.id, c.score) for c in cards], s, 2, None)
    assert hand[0].id == "card-018" and hand[0].rank_score > hand[1].rank_score


def test_a_card_without_example_questions_gets_the_median_not_zero() -> None:
    cards = [chunk("card-900", 0.60), chunk("card-003", 0.40), chunk("card-004", 0.35)]
    s = CardSignals(
        examples={"card-003": 0.6, "card-004": 0.4},
        example_cards=frozenset({"card-003", "card-004"}),
        lexical={"card-900": 0.8, "card-003": 0.2, "card-004": 0.1},
    )
    x = dict(zip(FEATURES, features(cards, s).T, strict=True))
    assert list(x["no_ex"]) == [1, 0, 0] and np.isclose(x["ex"][0], 0.5)
    # a card just added, best by retrieval and by its words, is not sunk for lacking them
    assert rank(cards, s, 1, load_card_ranker())[0].id == "card-900"
    # without the set of cards that have examples, none is marked
    plain = CardSignals(examples=s.examples, lexical=s.lexical)
    assert not features(cards, plain)[:, FEATURES.index("no_ex")].any()


def test_card_examples_keep_the_best_sentence_of_each_card() -> None:
    sims = {"card-027:01": 0.4, "card-027:03": 0.7, "card-003:02": 0.5}
    assert card_examples(sims) == {"card-027": 0.7, "card-003": 0.5}


def test_a_follow_ups_own_words_and_another_medicines_card_are_read() -> None:
    cards = [chunk("card-003", 0.45), chunk("card-027", 0.35), chunk("card-011", 0.30)]
    s = CardSignals(
        about={"card-003"},
        examples={"card-003": 0.7, "card-027": 0.5, "card-011": 0.4},
        examples_own={"card-003": 0.4, "card-027": 0.8, "card-011": 0.3},
        medicine_cards=frozenset({"card-003", "card-011"}),
        names_medicine=True,
    )
    x = dict(zip(FEATURES, features(cards, s).T, strict=True))
    assert np.allclose(x["ex_own"], [0.4, 0.8, 0.3]) and np.allclose(x["gap_own"], [-0.4, 0, -0.5])
    assert list(x["other_medicine"]) == [0, 0, 1]
    # not a follow-up: its own words are the question's
    plain = dict(zip(FEATURES, features(cards, CardSignals(examples=s.examples)).T, strict=True))
    assert np.allclose(plain["ex_own"], plain["ex"]) and not plain["other_medicine"].any()


def test_a_follow_up_asking_what_a_general_card_answers_leaves_the_carried_card() -> None:
    # "e se eu esquecer no jantar, tomo duas no dia seguinte?" after a metformina turn: the
    # carried name pulls every example question of its card; the turn's own words do not
    cards = [chunk("card-003", 0.47), chunk("card-027", 0.36)]
    s = CardSignals(
        about={"card-003"},
        context={"card-003"},
        examples={"card-003": 0.72, "card-027": 0.66},
        examples_own={"card-003": 0.48, "card-027": 0.80},
        lexical={"card-003": 0.3, "card-027": 0.4},
        medicine_cards=frozenset({"card-003"}),
        names_medicine=True,
    )
    assert [c.id for c in rank(cards, s, 2, load_card_ranker())] == ["card-027", "card-003"]
    # without the turn's own words, the carried card stays first
    s.examples_own = None
    assert [c.id for c in rank(cards, s, 2, load_card_ranker())][0] == "card-003"
