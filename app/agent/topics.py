"""Which cards answer an emergency or a self-harm question, by the topics they declare
(kb/cards front matter): the tables, and the cards they pick."""

from __future__ import annotations

from app.agent.state import AgentState
from app.core.text import fold
from app.retrieval.coverage import CardLexicon

# Cards the answer to an emergency should come from, by the card topics that name it.
EMERGENCY_TOPICS = {
    "stroke": ("avc",),
    "heart_attack": ("infarto",),
    "hypoglycaemia": ("hipoglicemia",),
    "anaphylaxis": ("angioedema",),
    "bleeding": ("sangramento", "anticoagulante"),
    "unconscious": ("hipoglicemia", "emergencia"),
    "hypertensive_crisis": ("pressao arterial",),
    "dehydration": ("metformina",),
    "confusion": ("polifarmacia", "quedas"),
    "poisoning": ("armazenamento", "paracetamol"),
}
# ... and, where several cards share the topic, the word their text must use: of the
# metformina cards, the one that tells what to do in a dehydration (card-004), not how to
# take the tablets (card-003)
EMERGENCY_TEXT = {"dehydration": "desidrat"}
SUPPORT_TOPICS = {"saude mental", "cvv"}  # cards that may answer a self-harm question


def emergency_cards(state: AgentState, lexicon: CardLexicon) -> list[str]:
    """Cards whose topics name the emergency the question describes (card-018 for a stroke)."""
    if not state.get("emergency"):
        return []
    sub = str(state.get("emergency_signals", {}).get("subkind") or state["emergency"])
    wanted = EMERGENCY_TOPICS.get(sub, ())
    cards = [c for c in lexicon.cards.values() if any(fold(t) in wanted for t in c.topics)]
    word = EMERGENCY_TEXT.get(sub)
    if word:
        cards = [c for c in cards if word in fold(c.text)] or cards
    return [c.id for c in cards]


def is_support_card(lexicon: CardLexicon, card_id: str) -> bool:
    """Whether the card is about getting help in a crisis (its topics name saúde mental or
    the CVV); False for a card the lexicon does not hold."""
    card = lexicon.cards.get(card_id)
    return card is not None and bool({fold(t) for t in card.topics} & SUPPORT_TOPICS)
