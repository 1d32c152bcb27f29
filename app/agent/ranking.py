"""The ranking of the retrieved cards (the retrieve node): what lifts a card (the names the
question gives, the previous turn's cards, the example questions' votes, an emergency's
cards) and the lexical coverage of the question, over retrieval's own rank score. The
weights live in app.agent.tunables."""

from __future__ import annotations

import numpy as np

from app.agent.answerability import content_terms
from app.agent.question_bank import QuestionBank
from app.agent.state import AgentState
from app.agent.tunables import (
    BANK_FLOOR,
    BANK_K,
    BANK_WEIGHT,
    CONTEXT_BOOST,
    EMERGENCY_BOOST,
    LEXICAL_WEIGHT,
    NAME_BOOST,
)
from app.core.vocabulary import Entry, Mention
from app.retrieval.coverage import CardLexicon, mention_cards
from app.retrieval.models import ContextChunk


def about_cards(lexicon: CardLexicon, names: list[Entry]) -> set[str]:
    """The cards about the names (a mere mention in a card's text does not count)."""
    return {
        c
        for c, w in mention_cards(lexicon, [Mention(e, e.name, 0, 0, True) for e in names]).items()
        if w >= 1.0
    }


def boosts(
    state: AgentState, lexicon: CardLexicon, bank: QuestionBank, emergency: list[str]
) -> dict[str, float]:
    """Card -> what is added to its rank score: the cards about the names the question gives
    (or the follow-up carries), the cards the previous turn cited, the cards that answer
    the known patient questions nearest to this one, the `emergency` cards."""
    mentions: list[Mention] = state.get("mentions", [])
    carried: list[Entry] = state.get("carried", [])
    named = list(dict.fromkeys([*(m.entry for m in mentions if m.entry.covered), *carried]))
    boost = {
        card: NAME_BOOST
        for card, weight in mention_cards(
            lexicon, [Mention(e, e.name, 0, 0, True) for e in named]
        ).items()
        if weight >= 1.0  # cards about the name; a mere mention in the text gets nothing
    }
    for card in state.get("context_cards", []):
        boost[card] = max(boost.get(card, 0.0), CONTEXT_BOOST)
    # Known patient questions near this one vote for the card that answers them (tunables).
    votes = bank.card_votes(np.asarray(state["query_vector"]), state["search_query"], k=BANK_K)
    for card, sim in votes.items():
        if sim > BANK_FLOOR:
            boost[card] = boost.get(card, 0.0) + BANK_WEIGHT * (sim - BANK_FLOOR)
    for card in emergency:
        boost[card] = boost.get(card, 0.0) + EMERGENCY_BOOST
    return boost


def lexical_coverage(
    lexicon: CardLexicon, query: str, candidates: list[ContextChunk]
) -> dict[str, float]:
    """Card -> the IDF-weighted share of the query's content words it has."""
    terms = content_terms(query)
    return {c.id: lexicon.coverage(terms, c.id) for c in candidates}


def rerank(
    candidates: list[ContextChunk], boost: dict[str, float], lexical: dict[str, float], top_k: int
) -> list[ContextChunk]:
    """Cards by retrieval's rank score (cosine + chunk bonus) + name boost + lexical
    coverage; `score` stays the cosine (the decision and the reports use it), the ranking
    score is `rank_score`, rewritten here."""
    for c in candidates:
        c.rank_score = round(
            c.rank_score + boost.get(c.id, 0.0) + LEXICAL_WEIGHT * lexical.get(c.id, 0.0), 6
        )
    ranked = sorted(candidates, key=lambda c: (-c.rank_score, c.id))
    return ranked[:top_k]
