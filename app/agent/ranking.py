"""The ranking of the retrieved cards (the retrieve node): what may lift a card (the names
the question gives, the previous turn's cards, the known questions' votes, the example
questions of its sentences, its lexical coverage of the question, an emergency's cards),
gathered as CardSignals, and the learned card ranker that weighs them with retrieval's own
score (app.agent.card_ranker)."""

from __future__ import annotations

from typing import Any

import numpy as np

from app.agent.answerability import content_terms
from app.agent.card_ranker import CardRanker, CardSignals, card_examples, rank
from app.agent.question_bank import QuestionBank
from app.agent.state import AgentState
from app.agent.tunables import BANK_FLOOR, BANK_K
from app.core.vocabulary import Entry, Mention, Vocabulary
from app.retrieval.coverage import CardLexicon, mention_cards
from app.retrieval.models import ContextChunk


def about_cards(lexicon: CardLexicon, names: list[Entry]) -> set[str]:
    """The cards about the names (a mere mention in a card's text does not count)."""
    return {
        c
        for c, w in mention_cards(lexicon, [Mention(e, e.name, 0, 0, True) for e in names]).items()
        if w >= 1.0
    }


_MEDICINE_CARDS: dict[str, frozenset[str]] = {}


def medicine_cards(lexicon: CardLexicon, vocabulary: Vocabulary) -> frozenset[str]:
    """The cards about some medicine (their title or topics name it), once per build."""
    found = _MEDICINE_CARDS.get(lexicon.collection)
    if found is None:
        found = frozenset(
            c
            for e in vocabulary.covered_entries()
            if e.kind == "medicine"
            for c in lexicon.cards_for(e)[0]
        )
        _MEDICINE_CARDS.clear()  # one build at a time
        _MEDICINE_CARDS[lexicon.collection] = found
    return found


def named_entries(state: AgentState | dict[str, Any]) -> list[Entry]:
    """The covered names the question gives, and those a follow-up carries."""
    mentions: list[Mention] = state.get("mentions", [])
    carried: list[Entry] = state.get("carried", [])
    return list(dict.fromkeys([*(m.entry for m in mentions if m.entry.covered), *carried]))


def card_signals(
    state: AgentState | dict[str, Any],
    lexicon: CardLexicon,
    bank: QuestionBank,
    vocabulary: Vocabulary,
    candidates: list[ContextChunk],
    example_sims: dict[str, float],
    emergency: list[str] | None = None,
    example_cards: frozenset[str] | None = None,
    own_sims: dict[str, float] | None = None,
) -> CardSignals:
    """What may lift each candidate: the cards about the names the question gives (or a
    follow-up carries; a mere mention in a card's text does not count), the cards the
    previous turn cited, the cards that answer the known patient questions nearest to this
    one, the example questions of the cards' sentences (`example_sims`, by sentence id),
    the share of the question's words each card has, and an emergency's cards.
    `example_cards`: the cards that have example questions at all (None: every card);
    `own_sims`: a follow-up's own words against the example questions (None: not one)."""
    named = named_entries(state)
    votes = bank.card_votes(np.asarray(state["query_vector"]), state["search_query"], k=BANK_K)
    terms = content_terms(state["search_query"])
    return CardSignals(
        about=about_cards(lexicon, named),
        context=set(state.get("context_cards", [])),
        earlier=set(state.get("earlier_cards", [])),
        bank={card: sim - BANK_FLOOR for card, sim in votes.items() if sim > BANK_FLOOR},
        emergency=set(emergency or []),
        examples=card_examples(example_sims),
        example_cards=example_cards,
        lexical={c.id: lexicon.coverage(terms, c.id) for c in candidates},
        medicine_cards=medicine_cards(lexicon, vocabulary),
        names_medicine=any(e.kind == "medicine" for e in named),
        examples_own=None if own_sims is None else card_examples(own_sims),
    )


def rerank(
    candidates: list[ContextChunk], signals: CardSignals, top_k: int, ranker: CardRanker | None
) -> list[ContextChunk]:
    """The top_k cards by the learned card ranker (app.agent.card_ranker.rank)."""
    return rank(candidates, signals, top_k, ranker)
