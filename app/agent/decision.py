"""What the decide node weighs besides the answerability model: what the decision reads
(the names it judges, the end of a long message, what the sentence scorer says of the
cards), what overrides it (low mood told, an emergency's cards, self-harm, a dose asked
for), and the cards a not-covered answer suggests."""

from __future__ import annotations

import re

from app.agent.answerability import Decision
from app.agent.deps import AgentDeps
from app.agent.generators import Focus
from app.agent.state import AgentState
from app.agent.topics import emergency_cards, is_support_card
from app.agent.tunables import LONG_QUESTION, SUGGESTION_SHARE, SUGGESTIONS
from app.core.text import fold
from app.core.vocabulary import Entry, Mention
from app.retrieval.coverage import CardLexicon
from app.retrieval.models import ContextChunk

_SENTENCE = re.compile(r"[^.!?]*[.!?]+|[^.!?]+$")

# A question that asks for an amount to take ("quantas gotas de dipirona posso tomar?",
# "qtas unidades de insulina eu aplico?"): the cards never give doses.
DOSE_ASKED = re.compile(
    r"(?<!tao )\b(?:quant[oa]s?|qtas?|qtos?|qnt[oa]s?)\b(?! tempo| vezes| o | a | os | as )"
    r"(?:\W+\w+){0,3}?\W+"
    r"(?:comprimidos?|gotas?|mg|miligramas?|microgramas?|mcg|unidades?|ml|mililitros?|"
    r"capsulas?|jatos?|puffs?|doses?)\b|\b(?:qual a|qual|que) dose\b|\bdose maxima\b"
)


# a question about all of one's medicines, not the one a story names
_ALL_MEDICINES = re.compile(
    r"\b(?:todos|todas|esses|estes|meus|os meus)\s+(?:(?:os|esses|meus)\s+)?"
    r"(?:remedios|medicamentos|comprimidos)\b"
)


def asked_mentions(query: str, mentions: list[Mention]) -> list[Mention]:
    """The names the decision judges: every covered one, and the uncovered ones of the
    sentences that ask (those with a question mark; the last one when none has). An
    uncovered name in the story around the question only describes the situation: "minha
    mãe toma varfarina por causa de uma arritmia e adora couve. precisa cortar a couve?"
    asks about couve, not about arritmia."""
    spans = [(m.start(), m.end()) for m in _SENTENCE.finditer(query) if m.group().strip()]
    if len(spans) < 2:
        return mentions
    asking = [(a, b) for a, b in spans if "?" in query[a:b]] or [spans[-1]]
    # A medicine the story says is taken is what a nameless question asks about, when the
    # message names no covered one: "tomo ozempic. posso tomar com café?" is about ozempic;
    # "tenho gota e tomo alopurinol. alguém pode olhar todos esses remédios juntos?" is not.
    subject = not any(m.entry.covered and m.entry.kind == "medicine" for m in mentions) and not any(
        _ALL_MEDICINES.search(fold(query[a:b])) for a, b in asking
    )

    def asked(m: Mention) -> bool:
        start, end = m.span
        if subject and m.entry.kind == "medicine":
            return True
        return end <= start or any(a <= start < b for a, b in asking)

    return [m for m in mentions if m.entry.covered or asked(m)]


def answer_signals(focus: Focus, deps: AgentDeps) -> dict[str, float]:
    """What the sentence scorer says of the cards the answer may cite: the best P(answers)
    of one of their sentences, and the best similarity of the question to one of their
    sentences' example questions (kb/questions)."""
    pool = focus.pool or []
    if not pool or focus.question is None:
        return {"answer_p": 0.0, "example_sim": 0.0}
    cards = {c.card for c in pool}
    exclude = getattr(deps.sentences, "exclude_author", None)
    sims = deps.examples().similarities(focus.question.folded, exclude_author=exclude)
    best = max((v for sid, v in sims.items() if sid.rsplit(":", 1)[0] in cards), default=0.0)
    return {"answer_p": max(c.score for c in pool), "example_sim": max(best, 0.0)}


def judged_mentions(state: AgentState) -> list[Mention]:
    """The names the decision judges (`asked_mentions`), with those a follow-up carries."""
    carried: list[Entry] = state.get("carried", [])
    mentions = asked_mentions(state["query"], state.get("mentions", []))
    if carried:
        mentions = mentions + [Mention(e, e.name, 0, 0, True) for e in carried]
    return mentions


def judged_text(search_query: str) -> str:
    """A long message (a story, then the question) is judged on its end, where patients ask."""
    text = search_query
    if len(text) > LONG_QUESTION:
        text = text[-LONG_QUESTION:].split(" ", 1)[-1]
    return text


def must_answer(state: AgentState, lexicon: CardLexicon, focus: Focus) -> bool:
    """Low mood told ("ando muito triste, sem vontade de nada faz semanas") is answered
    whatever the decision's score, when a card on where to get help (topics saúde mental,
    CVV) is among those it may cite: the line on where to find help comes first."""
    parents = state.get("parents", [])
    if state.get("emergency") or not parents:
        return False
    if focus.low_mood:
        return any(is_support_card(lexicon, p.id) for p in parents if p.id in lexicon.cards)
    return False


def cards_cover(state: AgentState, lexicon: CardLexicon, answerable: bool) -> bool:
    """Whether the cards answer, given the answerability decision and the emergency if any.

    - An emergency whose signs' card ranks first is answered from it (what to look for,
      what to do) even when the wording is far from any card: "a boca torta e não mexe o
      braço" gets the stroke signs under the escalation, not the escalation alone.
    - A poisoning named by the rules is answered only from a card about it (storage out of
      children's reach, the paracetamol limit), never from whatever card ranked first.
    - Safe messaging: a message read as self-harm (intent, a method question), by the rules
      or by resemblance to the exemplars, gets no medicine or dose details, only a card about
      getting help in a crisis (its topics name saúde mental or the CVV). An informational
      question read as self-harm by mistake loses its answer too: the escalation it gets
      says where to find help, and a method question that resembles an informational one
      must never get the lines that confirm the method.
    Other emergencies found by resemblance alone keep their answer under the escalation."""
    parents = state.get("parents", [])
    if not parents:
        return False
    emergency = state.get("emergency")
    top = parents[0].id
    signs_card = (
        bool(emergency)
        and top in state.get("about", set())
        and top in emergency_cards(state, lexicon)
    )
    covered = answerable or signs_card
    if covered and emergency == "self_harm":
        # Whatever found it, rules or resemblance: "tomar a caixa toda de clonazepam com
        # cachaça resolve de vez?" (found by resemblance) was answered with the sleep card's
        # "a mistura aumenta muito a sedação e pode deprimir a respiração".
        return is_support_card(lexicon, top)
    by_rule = state.get("emergency_signals", {}).get("by") == "concept"
    if covered and by_rule and emergency == "poisoning":
        return top in emergency_cards(state, lexicon)
    return covered


def refuses_dose(state: AgentState, decision: Decision) -> bool:
    """Whether the question asks for a dose (outside an emergency): the cards never give
    one, and a line about the medicine reads as if they did ("quantas unidades de insulina
    eu aplico?" got the injection sites). Then the decision says why it is not covered."""
    if state.get("emergency") or not DOSE_ASKED.search(fold(state["query"])):
        return False
    decision.uncovered_terms = ["a dose a tomar (quem define é o médico)"]
    decision.reason = "A pergunta pede uma dose, e os cartões não indicam doses."
    return True


def suggestions(candidates: list[ContextChunk], min_similarity: float) -> list[dict[str, str]]:
    """The cards a not-covered answer suggests: the first candidates, when close enough.
    Each is offered as the patient question the card answers (its `suggested_question`),
    which the page shows and asks as it is; a card stored before cards had one offers its
    title instead."""
    out = []
    for c in candidates[:SUGGESTIONS]:
        if c.score >= min_similarity * SUGGESTION_SHARE:
            out.append(
                {
                    "id": c.id,
                    "title": c.title,
                    "question": c.card.suggested_question or c.title,
                }
            )
    return out
