"""Which card sentence answers the question: a learned scorer over (question, sentence) pairs.

For every quotable sentence of the cards retrieval kept, `features` computes what may tell
an answering sentence from its neighbours; a logistic regression (scikit-learn at training
time, `python -m evaluation.sentence_scorer`; weights in sentence_scorer.json at serving)
turns them into P(the sentence answers the question). Trained on the tuning authors of
kb/questions, whose every question names the sentences that answer it and, by the same
label, those of its card that do not; measured on authors held out whole.

The features (FEATURES, in order):
- sim, sim_asked: cosine of the sentence to the question, and to the question without the
  names it gives (inside a card about omeprazol every sentence shares the name);
- gap_card_sim, gap_all_sim: sim_asked minus the best of its card / of every candidate;
- ex, has_ex, gap_card_ex: the best similarity of the question to the sentence's example
  questions (app.agent.examples), whether it has any, and the gap to its card's best;
- lex, gap_card_lex: the IDF-weighted share of the question's words (names out, patient
  words mapped by kb/thesaurus.yaml) the sentence has;
- intent_dot, intent_max: the question's intents (app.agent.intent) against the sentence's
  (kb/sentences.yaml);
- rank0, rank_gap: whether the sentence's card ranked first, and how far below the first;
- about, names_it, other_medicine: the card is about the medicine or condition asked
  about, the sentence names it, the sentence names another medicine;
- dependent, informative, first_in_card, rel_pos: what the sentence is on its own.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from app.agent.examples import ExampleBank
from app.agent.sentence_labels import ANAPHORIC, INTENTS, SentenceLabel
from app.core.text import fold, tokenize
from app.core.vocabulary import Entry, vocabulary

SCORER_PATH = Path(__file__).resolve().with_name("sentence_scorer.json")

FEATURES = (
    "sim",
    "sim_asked",
    "gap_card_sim",
    "gap_all_sim",
    "ex",
    "has_ex",
    "gap_card_ex",
    "lex",
    "gap_card_lex",
    "intent_dot",
    "intent_max",
    "rank0",
    "rank_gap",
    "about",
    "names_it",
    "other_medicine",
    "dependent",
    "informative",
    "first_in_card",
    "rel_pos",
)


@dataclass
class Candidate:
    """One quotable sentence of a retrieved card."""

    rank: int  # the card's place in the ranking
    n: int  # the sentence's number in its card (its id is `{card}:{n:02d}`)
    para: int
    card: str
    text: str
    label: SentenceLabel | None = None
    n_card: int = 1  # sentences in its card
    score: float = 0.0  # P(answers), once scored

    @property
    def sid(self) -> str:
        return f"{self.card}:{self.n:02d}"

    @property
    def needs(self) -> str | None:
        """The sentence it cannot be read without (its label's, else by its first word)."""
        if self.label is not None:
            return self.label.needs
        if ANAPHORIC.match(self.text) and self.n > 1:
            return f"{self.card}:{self.n - 1:02d}"
        return None


@dataclass
class Question:
    """What the scorer needs to know of the question."""

    text: str
    vector: np.ndarray  # the question as searched
    folded: np.ndarray  # accent-folded, lower-cased (the example questions' form)
    asked: np.ndarray | None = None  # without the names it gives
    intents: np.ndarray | None = None  # P(intent), INTENTS order
    groups: list[tuple[frozenset[str], float]] = field(default_factory=list)
    names: list[Entry] = field(default_factory=list)
    about: set[str] = field(default_factory=set)
    rank_scores: dict[str, float] = field(default_factory=dict)
    # the example questions' similarities to `folded` by sentence id, when retrieve has them
    example_sims: dict[str, float] | None = None


@lru_cache(maxsize=1 << 14)
def _terms(sentence: str) -> frozenset[str]:
    return frozenset(tokenize(sentence))


# Card sentences are few and read on every answer: what they name is looked up once.
@lru_cache(maxsize=1 << 14)
def exact_names(sentence: str) -> tuple[tuple[str, str], ...]:
    """(name, kind) of each entry the sentence names exactly (not by a misspelling)."""
    return tuple((m.entry.name, m.entry.kind) for m in vocabulary().find(sentence) if m.exact)


@lru_cache(maxsize=1 << 14)
def medicines_named(sentence: str) -> frozenset[str]:
    return frozenset(name for name, kind in exact_names(sentence) if kind == "medicine")


@lru_cache(maxsize=1 << 10)
def _alias_pattern(aliases: tuple[str, ...]) -> re.Pattern[str]:
    # one alternation; each alternative keeps its own word edges, as a search per alias did
    return re.compile(rf"(?<!\w)(?:{'|'.join(re.escape(a) for a in aliases)})(?!\w)")


@lru_cache(maxsize=1 << 14)
def names_in(sentence: str, aliases: tuple[str, ...]) -> bool:
    """Whether the sentence says one of `aliases` (folded) as a whole word."""
    aliases = tuple(a for a in aliases if a)
    return bool(aliases) and _alias_pattern(aliases).search(fold(sentence)) is not None


@lru_cache(maxsize=1 << 16)
def _has_term(term: str, words: frozenset[str]) -> bool:
    return term in words or (len(term) >= 4 and any(w.startswith(term) for w in words))


def lexical(groups: list[tuple[frozenset[str], float]], words: frozenset[str]) -> float:
    total = sum(w for _, w in groups)
    if not total:
        return 0.0
    return sum(w for g, w in groups if any(_has_term(t, words) for t in g)) / total


def _intent_match(q: Question, pool: list[Candidate]) -> tuple[np.ndarray, np.ndarray]:
    """intent_dot and intent_max: the sum and the best of the question's P(intent) over the
    intents of each sentence's label (zero for a sentence without)."""
    intents = q.intents if q.intents is not None else np.zeros(len(INTENTS))
    index = {name: i for i, name in enumerate(INTENTS)}
    dot, top = np.zeros(len(pool)), np.zeros(len(pool))
    for i, c in enumerate(pool):
        if c.label is not None and c.label.intents:
            values = [float(intents[index[x]]) for x in c.label.intents]
            dot[i], top[i] = sum(values), max(values)
    return dot, top


def _card_max(cards: list[str], values: np.ndarray) -> np.ndarray:
    """Each value replaced by the best value of its card."""
    best: dict[str, float] = {}
    for card, v in zip(cards, values, strict=True):
        best[card] = max(best.get(card, -math.inf), float(v))
    return np.array([best[card] for card in cards])


def features(
    q: Question,
    pool: list[Candidate],
    sentence_vectors: Callable[[list[str]], np.ndarray],
    examples: ExampleBank,
    exclude_author: str | None = None,
) -> np.ndarray:
    """One row of FEATURES per candidate."""
    if not pool:
        return np.zeros((0, len(FEATURES)))
    vecs = sentence_vectors([c.text for c in pool])
    sim = vecs @ np.asarray(q.vector)
    sim_asked = vecs @ np.asarray(q.asked) if q.asked is not None else sim
    if q.example_sims is not None and exclude_author is None:
        ex_by = q.example_sims  # computed by retrieve for this very question
    else:
        ex_by = examples.similarities(q.folded, exclude_author=exclude_author)
    ex = np.array([max(ex_by.get(c.sid, 0.0), 0.0) for c in pool])
    has_ex = np.array([c.sid in ex_by for c in pool], dtype=float)
    lex = np.array([lexical(q.groups, _terms(c.text)) for c in pool])
    dot, top = _intent_match(q, pool)
    cards = [c.card for c in pool]
    best_rank = max(q.rank_scores.values(), default=0.0)
    medicines = {e.name for e in q.names if e.kind == "medicine"}
    aliases = tuple(a for e in q.names for a in e.aliases)
    rows = []
    for i, c in enumerate(pool):
        named = medicines_named(c.text)
        rows.append(
            [
                float(sim[i]),
                float(sim_asked[i]),
                0.0,
                0.0,
                float(ex[i]),
                float(has_ex[i]),
                0.0,
                float(lex[i]),
                0.0,
                float(dot[i]),
                float(top[i]),
                1.0 if c.rank == 0 else 0.0,
                q.rank_scores.get(c.card, best_rank) - best_rank,
                1.0 if c.card in q.about else 0.0,
                1.0 if aliases and names_in(c.text, aliases) else 0.0,
                1.0 if named - medicines else 0.0,
                1.0 if c.needs else 0.0,
                1.0 if c.label is None or c.label.informative else 0.0,
                1.0 if c.n == 1 else 0.0,
                (c.n - 1) / max(c.n_card - 1, 1),
            ]
        )
    x = np.array(rows)
    x[:, 2] = sim_asked - _card_max(cards, sim_asked)
    x[:, 3] = sim_asked - float(np.max(sim_asked))
    x[:, 6] = ex - _card_max(cards, ex)
    x[:, 8] = lex - _card_max(cards, lex)
    return x


class SentenceScorer:
    """P(answers) from FEATURES, with the trained logistic regression's weights."""

    def __init__(self, model: dict[str, Any]):
        if list(model["features"]) != list(FEATURES):
            raise ValueError(
                "sentence scorer trained on other features; retrain it "
                "(python -m evaluation.sentence_scorer)"
            )
        self.model = model
        self.mean = np.array(model["mean"])
        self.scale = np.array(model["scale"])
        self.coef = np.array(model["coef"])
        self.intercept = float(model["intercept"])

    @classmethod
    def load(cls, path: Path = SCORER_PATH) -> SentenceScorer:
        return cls(json.loads(path.read_text(encoding="utf-8")))

    @classmethod
    def neutral(cls) -> SentenceScorer:
        """Before the first training: the similarity to what is asked, alone."""
        n = len(FEATURES)
        coef = [0.0] * n
        coef[FEATURES.index("sim_asked")] = 1.0
        return cls(
            {
                "features": list(FEATURES),
                "mean": [0.0] * n,
                "scale": [1.0] * n,
                "coef": coef,
                "intercept": 0.0,
            }
        )

    def predict(self, x: np.ndarray) -> np.ndarray:
        if not len(x):
            return np.zeros(0)
        z = ((x - self.mean) / self.scale) @ self.coef + self.intercept
        out: np.ndarray = 1.0 / (1.0 + np.exp(-z))
        return out


@lru_cache(maxsize=2)
def load_scorer(path: Path = SCORER_PATH) -> SentenceScorer:
    return SentenceScorer.load(path) if path.exists() else SentenceScorer.neutral()
