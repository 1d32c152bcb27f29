"""What the cards of the active build cover, as words: the lexicon behind the answerability
decision and the topic steering of retrieval.

For one build (rebuilt when the active build changes, like the BM25 index):
- every card's stemmed, accent-folded content words (the tokenizer of app.retrieval.lexical),
  and each word's inverse document frequency over the cards;
- for each covered name of kb/vocabulary.yaml, the cards *about* it (the name in the title
  or topics) and the cards that *mention* it (in the text).
"""

from __future__ import annotations

import functools
import logging
import math
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

from app.core.text import fold, tokenize
from app.core.vocabulary import Entry, Mention, Vocabulary
from app.store.index import IndexStore

log = logging.getLogger(__name__)


@dataclass
class CardInfo:
    id: str
    title: str
    topics: list[str]
    text: str
    terms: frozenset[str] = frozenset()


@dataclass
class CardLexicon:
    collection: str
    cards: dict[str, CardInfo]
    idf: dict[str, float]
    about: dict[str, list[str]] = field(default_factory=dict)  # entry name -> card ids
    mentions: dict[str, list[str]] = field(default_factory=dict)

    @property
    def max_idf(self) -> float:
        # computed once per build: `coverage` asks for it once per word, and a max over the
        # whole vocabulary each time was 2-4 ms of every /api/ask
        return self._max_idf

    def known(self, term: str) -> bool:
        """Whether any card has the word, or a word of the same stem family ("tont" for
        "tontura": the stemmer does not join every derived form)."""
        if term in self.idf:
            return True
        if len(term) < 4:
            return False
        return any(
            t.startswith(term) or (len(t) >= 4 and term.startswith(t) and len(term) - len(t) <= 2)
            for t in self._by_prefix.get(term[:4], ())
        )

    def __post_init__(self) -> None:
        self._max_idf = max(self.idf.values(), default=1.0)
        self._by_prefix: dict[str, list[str]] = {}
        for t in self.idf:
            if len(t) >= 4:
                self._by_prefix.setdefault(t[:4], []).append(t)

    def coverage(self, terms: Iterable[str], card_id: str) -> float:
        """IDF-weighted share of `terms` found in the card; a word no card has weighs the
        most (it is what the question is about and nothing covers it)."""
        terms = list(dict.fromkeys(terms))
        if not terms or card_id not in self.cards:
            return 0.0
        card = self.cards[card_id].terms
        weight = {t: self.idf.get(t, self.max_idf * (1.0 if self.known(t) else 1.2)) for t in terms}
        total = sum(weight.values())
        return sum(w for t, w in weight.items() if self._in(t, card)) / total if total else 0.0

    @staticmethod
    def _in(term: str, card: frozenset[str]) -> bool:
        return term in card or _prefix_of_some(term, card)

    def cards_for(self, entry: Entry) -> tuple[list[str], list[str]]:
        return self.about.get(entry.name, []), self.mentions.get(entry.name, [])


@functools.lru_cache(maxsize=1 << 16)
def _prefix_of_some(term: str, card: frozenset[str]) -> bool:
    """Whether a word of the card starts with `term` (cached: a frozenset keeps its hash,
    and the same questions' words meet the same cards)."""
    return len(term) >= 4 and any(t.startswith(term) for t in card)


# Everyday words for what the cards say in other words, as stems: "depois do almoço" and
# "antes de comer" are what a card means by "com ou sem alimento" and "após uma refeição"
# ("a losartana depois do almoço?" was refused: no card has "almoço"). A card's terms get
# the shared form too, so a question's word and a card's word meet there.
EVERYDAY = {
    "almoc": "refeica",
    "jant": "refeica",
    "com": "refeica",  # comer, comida (the preposition is a stopword, gone before stemming)
    "lanch": "refeica",
    "aliment": "refeica",
    "refeico": "refeica",
}


def everyday(terms: Iterable[str]) -> list[str]:
    """Terms with the everyday words in their shared form."""
    return [EVERYDAY.get(t, t) for t in terms]


_NAME_TOKEN = re.compile(r"[\w-]+")


def _phrases(folded: str, longest: int) -> set[str]:
    """Every run of 1..longest words of the folded text, joined by one space: an alias is
    in the text as a whole word (not inside a longer or hyphenated one) exactly when it is
    one of these."""
    words = _NAME_TOKEN.findall(folded)
    return {
        " ".join(words[i : i + n]) for n in range(1, longest + 1) for i in range(len(words) - n + 1)
    }


def build_lexicon(collection: str, cards: list[CardInfo], vocabulary: Vocabulary) -> CardLexicon:
    df: dict[str, int] = {}
    for card in cards:
        words = tokenize(f"{card.title} {' '.join(card.topics)} {card.text}")
        card.terms = frozenset(words) | frozenset(everyday(words))
        for t in card.terms:
            df[t] = df.get(t, 0) + 1
    n = max(len(cards), 1)
    idf = {t: math.log(1 + n / c) for t, c in df.items()}
    about: dict[str, list[str]] = {}
    mentions: dict[str, list[str]] = {}
    entries = [
        (entry.name, {" ".join(_NAME_TOKEN.findall(a)) for a in entry.aliases})
        for entry in vocabulary.covered_entries()
    ]
    longest = max((a.count(" ") + 1 for _, aliases in entries for a in aliases), default=1)
    # Set lookups, not one regex per name and card: 10,000 cards took 14 s with regexes.
    for card in cards:
        head = _phrases(fold(f"{card.title} {' '.join(card.topics)}"), longest)
        body = _phrases(fold(card.text), longest)
        for name, aliases in entries:
            if not aliases.isdisjoint(head):
                about.setdefault(name, []).append(card.id)
            elif not aliases.isdisjoint(body):
                mentions.setdefault(name, []).append(card.id)
    return CardLexicon(collection, {c.id: c for c in cards}, idf, about, mentions)


class CardLexiconCache:
    """The lexicon of the active build, rebuilt when the active build changes."""

    def __init__(self, store: IndexStore, vocabulary: Vocabulary):
        self.store = store
        self.vocabulary = vocabulary
        self._lexicon: CardLexicon | None = None
        self._lock = threading.Lock()

    @property
    def built_for(self) -> str | None:
        """The build the cached lexicon was made from (None before the first one)."""
        lexicon = self._lexicon
        return lexicon.collection if lexicon is not None else None

    def get(self) -> CardLexicon:
        build = self.store.active_snapshot()
        with self._lock:
            if self._lexicon is None or self._lexicon.collection != build.name:
                cards = [
                    CardInfo(id=c.id, title=c.title, topics=list(c.topics), text=c.text)
                    for c in build.cards.values()
                ]
                self._lexicon = build_lexicon(build.name, cards, self.vocabulary)
                log.info("card lexicon built for %s (%d cards)", build.name, len(cards))
            return self._lexicon


def mention_cards(lexicon: CardLexicon, mentions: list[Mention]) -> dict[str, float]:
    """Cards to favour for the covered names a question mentions: about > mentions."""
    boost: dict[str, float] = {}
    for m in mentions:
        if not m.entry.covered:
            continue
        about, mentioned = lexicon.cards_for(m.entry)
        for card in about:
            boost[card] = max(boost.get(card, 0.0), 1.0)
        for card in mentioned:
            boost[card] = max(boost.get(card, 0.0), 0.5)
    return boost
