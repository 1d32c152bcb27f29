"""How chosen sentences make an answer (app.agent.compose)."""

from __future__ import annotations

import numpy as np

from app.agent.compose import MAX_SENTENCES, Part, compose
from app.agent.scorer import Candidate
from app.agent.sentence_labels import SentenceLabel


def cand(card: str, n: int, score: float, needs: int | None = None, para: int = 0) -> Candidate:
    sid = f"{card}:{n:02d}"
    label = SentenceLabel(sid, f"s{n}", (), f"{card}:{needs:02d}" if needs else None, True)
    return Candidate(0, n, para, card, f"Frase {card} {n}.", label=label, score=score)


def sids(cs: list[Candidate]) -> list[str]:
    return [c.sid for c in cs]


def test_the_best_sentence_opens_and_at_most_three_are_quoted() -> None:
    pool = [cand("card-001", i, s) for i, s in enumerate([0.2, 0.95, 0.9, 0.9, 0.9], start=1)]
    out = compose(pool, [True] * len(pool), [])
    assert out.chosen[0].sid == "card-001:02"
    assert len(out.chosen) <= MAX_SENTENCES and "card-001:01" not in sids(out.chosen)


def test_a_sentence_that_needs_the_one_before_comes_right_after_it() -> None:
    pool = [cand("card-010", 1, 0.1), cand("card-010", 2, 0.2), cand("card-010", 3, 0.99, needs=2)]
    out = compose(pool, [True] * 3, [])
    assert sids(out.chosen)[:2] == ["card-010:02", "card-010:03"] and out.lead == 2


def test_a_sentence_whose_antecedent_cannot_be_quoted_is_not_quoted() -> None:
    # card-010:02 is not in the pool (unquotable): 03 cannot stand alone
    pool = [cand("card-010", 1, 0.5), cand("card-010", 3, 0.99, needs=2)]
    out = compose(pool, [True, True], [])
    assert sids(out.chosen) == ["card-010:01"]


def test_each_part_gets_its_own_sentence_and_an_unanswered_part_is_named() -> None:
    pool = [cand("card-016", 1, 0.9), cand("card-015", 1, 0.8), cand("card-015", 2, 0.3)]
    aas = Part("o AAS?", np.array([0.9, 0.1, 0.1]))
    statin = Part("e a sinvastatina?", np.array([0.1, 0.9, 0.2]))
    juice = Part("e suco de laranja?", np.array([0.01, 0.02, 0.0]))
    out = compose(pool, [True] * 3, [aas, statin, juice])
    assert sids(out.chosen)[:2] == ["card-016:01", "card-015:01"]
    assert out.uncovered == ["e suco de laranja?"]


def test_a_card_that_may_not_speak_is_never_quoted() -> None:
    pool = [cand("card-020", 1, 0.99), cand("card-003", 1, 0.6)]
    out = compose(pool, [False, True], [])
    assert sids(out.chosen) == ["card-003:01"]
