"""Which retrieved card answers the question: a learned card ranker (issue 24).

Retrieval over-fetches top_k x WIDEN cards (app.agent.nodes.retrieve); this model orders them
and keeps top_k. It replaces hand-set lifts (a name's boost, the previous turn's cards, the
known questions' votes, the lexical weight) with a logistic regression over the same
signals plus the one that carries the most: how close the question is to the example
questions of the card's sentences (the multi-vector "hypothetical questions" of
app.agent.examples, taken at card level). A question that names a medicine and asks what a
general card answers ("esqueci a metformina no almoço, tomo na janta?") was answered from
the medicine's card: the name's boost and the embedding both favour it, and only the
example questions of card-027 know "esqueci".

FEATURES, per candidate card, in order:
- rank, gap_rank: retrieval's rank score (best subchunk cosine plus its chunk bonus), and
  its gap to the best candidate's;
- ex, gap_ex: the best similarity of the question to the example questions of the card's
  sentences, and its gap to the best candidate's;
- lex, gap_lex: the IDF-weighted share of the question's words the card has, and its gap;
- about: the card is about a medicine or topic the question names (or a follow-up carries);
- context: the previous turn cited it (a follow-up read as one: it names no medicine and is
  short, or starts or refers back like one);
- earlier: the previous turn cited it, in a later turn not read as a follow-up (it names a
  medicine, or is long). "E as agulhinhas da insulina do meu marido, vão junto?" after a
  turn on where to take expired medicines names insulina, and without this the ranker had
  no sign of the disposal card the conversation was on;
- bank: the votes of the nearest known patient questions (app.agent.question_bank) over
  their floor;
- general_named: the card is about no medicine while the question names or carries one;
- no_ex: the card has no example questions in the build served (a card just added). Its
  `ex` is then the median of the candidates that have some, and the model learned what that
  is worth from training copies whose card had its example questions masked: before, a new
  card sank below every card with examples (the red team's poisoned card-900 was no longer
  retrieved for the questions written to reach it).

Trained by `python -m evaluation.card_ranker` (scikit-learn) on the tuning authors of
kb/questions, each card a row, labelled by whether it answers the question; a tuning
question's example-question similarity leaves its own author out. Served from
card_ranker.json with no scikit-learn. Before the first training the hand-set lifts of
app.agent.tunables rank the cards (`hand_score`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from app.agent.logistic import load_logistic, logistic_rows
from app.agent.tunables import (
    BANK_WEIGHT,
    CONTEXT_BOOST,
    EMERGENCY_LEAD,
    LEXICAL_WEIGHT,
    NAME_BOOST,
)
from app.retrieval.models import ContextChunk

RANKER_PATH = Path(__file__).resolve().with_name("card_ranker.json")
RETRAIN = "python -m evaluation.card_ranker"

FEATURES = (
    "rank",
    "gap_rank",
    "ex",
    "gap_ex",
    "lex",
    "gap_lex",
    "about",
    "context",
    "bank",
    "general_named",
    "no_ex",
    "earlier",
    "ex_own",
    "gap_own",
    "other_medicine",
)


@dataclass
class CardSignals:
    """What may lift a retrieved card, besides retrieval's own score."""

    about: set[str] = field(default_factory=set)  # cards about the names given or carried
    context: set[str] = field(default_factory=set)  # the cards the previous turn cited
    # the cards the previous turn cited, when this turn is not read as a follow-up
    earlier: set[str] = field(default_factory=set)
    bank: dict[str, float] = field(default_factory=dict)  # known questions' votes over the floor
    emergency: set[str] = field(default_factory=set)  # the cards about the emergency's signs
    examples: dict[str, float] = field(default_factory=dict)  # card -> best example similarity
    example_cards: frozenset[str] | None = None  # the cards with example questions (None: all)
    lexical: dict[str, float] = field(default_factory=dict)  # card -> lexical coverage
    medicine_cards: frozenset[str] = frozenset()  # the cards about some medicine
    names_medicine: bool = False  # the question names a medicine, or a follow-up carries one
    # card -> best example similarity of a follow-up's own words (None: as `examples`)
    examples_own: dict[str, float] | None = None


def card_examples(sims: dict[str, float]) -> dict[str, float]:
    """Card -> the best similarity among its sentences' (`card-XXX:NN` -> similarity)."""
    out: dict[str, float] = {}
    for sid, value in sims.items():
        card = sid.rsplit(":", 1)[0]
        if value > out.get(card, -1.0):
            out[card] = value
    return out


def features(candidates: list[ContextChunk], s: CardSignals) -> np.ndarray:
    """One row of FEATURES per candidate (retrieval's `rank_score` as found)."""
    if not candidates:
        return np.zeros((0, len(FEATURES)))
    ids = [c.id for c in candidates]
    rank = np.array([c.rank_score for c in candidates])
    no_ex = np.array([s.example_cards is not None and i not in s.example_cards for i in ids])
    ex = _example_column(ids, s.examples, no_ex)
    own = ex if s.examples_own is None else _example_column(ids, s.examples_own, no_ex)
    lex = np.array([s.lexical.get(i, 0.0) for i in ids])
    x = np.zeros((len(ids), len(FEATURES)))
    x[:, 0], x[:, 1] = rank, rank - rank.max()
    x[:, 2], x[:, 3] = ex, ex - ex.max()
    x[:, 4], x[:, 5] = lex, lex - lex.max()
    x[:, 6] = [i in s.about for i in ids]
    x[:, 7] = [i in s.context for i in ids]
    x[:, 8] = [s.bank.get(i, 0.0) for i in ids]
    x[:, 9] = [s.names_medicine and i not in s.medicine_cards for i in ids]
    x[:, 10] = no_ex
    x[:, 11] = [i in s.earlier for i in ids]
    x[:, 12], x[:, 13] = own, own - own.max()
    x[:, 14] = [s.names_medicine and i in s.medicine_cards and i not in s.about for i in ids]
    return x


def _example_column(ids: list[str], examples: dict[str, float], no_ex: np.ndarray) -> np.ndarray:
    """Each candidate's best example similarity (0 at worst); a card with no example questions
    gets the median of those that have some."""
    ex = np.array([max(examples.get(i, 0.0), 0.0) for i in ids])
    if no_ex.any():
        ex[no_ex] = float(np.median(ex[~no_ex])) if (~no_ex).any() else 0.0
    return ex


def hand_score(candidates: list[ContextChunk], s: CardSignals) -> np.ndarray:
    """Before the first training: retrieval's rank score plus the hand-set lifts."""
    return np.array(
        [
            c.rank_score
            + (NAME_BOOST if c.id in s.about else 0.0)
            + (CONTEXT_BOOST if c.id in s.context and c.id not in s.about else 0.0)
            + BANK_WEIGHT * s.bank.get(c.id, 0.0)
            + LEXICAL_WEIGHT * s.lexical.get(c.id, 0.0)
            for c in candidates
        ]
    )


class CardRanker:
    """P(the card answers the question) from FEATURES, with the trained weights."""

    def __init__(self, model: dict[str, Any]):
        self.model = model

    @classmethod
    def load(cls, path: Path = RANKER_PATH) -> CardRanker:
        return cls(load_logistic(path, FEATURES, RETRAIN))

    def predict(self, x: np.ndarray) -> np.ndarray:
        return logistic_rows(x, self.model)


@lru_cache(maxsize=2)
def load_card_ranker(path: Path = RANKER_PATH) -> CardRanker | None:
    """The trained ranker, or None before the first training (the hand-set lifts rank)."""
    return CardRanker.load(path) if path.exists() else None


def rank(
    candidates: list[ContextChunk],
    s: CardSignals,
    top_k: int,
    ranker: CardRanker | None,
) -> list[ContextChunk]:
    """The top_k candidates, best first. `rank_score` becomes what they are ranked by (the
    ranker's P(answers), or the hand-set score before it is trained); `score` stays the
    cosine, which the decision and the reports read. The cards about an emergency's signs
    come first in an emergency, whatever the ranker says: its answer stays on them."""
    if not candidates:
        return []
    scores = ranker.predict(features(candidates, s)) if ranker else hand_score(candidates, s)
    # an emergency's cards rank as sure (the ranker's highest P, or above the best hand-set
    # score), so the sentence scorer reads every other card as below them: before,
    # "meu pai está com a boca torta e não mexe o braço" was answered from the angioedema
    # card, level with card-018 on its rank
    sure = 1.0 if ranker else float(np.max(scores)) + EMERGENCY_LEAD
    for c, value in zip(candidates, scores, strict=True):
        c.rank_score = round(sure if c.id in s.emergency else float(value), 6)
    ranked = sorted(candidates, key=lambda c: (c.id not in s.emergency, -c.rank_score, c.id))
    return ranked[:top_k]
