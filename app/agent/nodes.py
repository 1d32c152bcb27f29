"""The graph's nodes: plain functions of the state and the run's dependencies
(`runtime.context`, an AgentDeps), each returning a partial update. Wired in graph.py."""

from __future__ import annotations

import re
import time
from typing import Any, Literal

import numpy as np
from langgraph.runtime import Runtime

from app.agent.answerability import content_terms
from app.agent.answerability import decide as answerability
from app.agent.deps import AgentDeps
from app.agent.focusing import answer_signals, asked_mentions, make_focus
from app.agent.followup import focus_names, follow_up_topic, part_text, what_is_asked
from app.agent.generators import (
    Focus,
    guidance_sentence,
    is_guidance,
    speaks_to_stop,
)
from app.agent.parts import clauses
from app.agent.safety import (
    CALM_LINE,
    ESCALATION,
    REFUSAL,
    not_covered,
    topic_prefix,
    uncovered_part,
)
from app.agent.state import AgentState
from app.agent.text import sentences
from app.agent.verify import verify_draft
from app.core.text import fold
from app.core.vocabulary import Entry, Mention
from app.retrieval.coverage import CardLexicon, mention_cards
from app.retrieval.models import ContextChunk
from app.safety.pii import clean_question
from app.safety.rules import rules

# How much a card about the medicine or condition the question names is lifted in the
# ranking (added to its cosine similarity; a card that only mentions it gets half).
# Tuned on the tuning half of the golden set (README, "Answerability and focus").
NAME_BOOST = 0.08
CONTEXT_BOOST = 0.05  # cards the previous turn cited, for a follow-up
# Weight of the card's lexical coverage of the question (IDF-weighted share of its content
# words found in the card) added to the ranking score: catches what a short question's
# embedding misses ("varfarina e couve pode?": couve is in card-017 only).
LEXICAL_WEIGHT = 0.15
CITE_FLOOR = 0.10
LONG_QUESTION = 400  # characters: the answerability of a longer message is judged on its end
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
EMERGENCY_BOOST = 0.15
BANK_WEIGHT, BANK_FLOOR, BANK_K = 0.5, 0.5, 3  # example questions' votes (see `retrieve`)
SUPPORT_TOPICS = {"saude mental", "cvv"}  # cards that may answer a self-harm question
WIDEN = 3  # candidates fetched per card kept, so a boosted card can rise into the top_k


# A question that asks for an amount to take ("quantas gotas de dipirona posso tomar?",
# "qtas unidades de insulina eu aplico?"): the cards never give doses.
DOSE_ASKED = re.compile(
    r"(?<!tao )\b(?:quant[oa]s?|qtas?|qtos?|qnt[oa]s?)\b(?! tempo| vezes| o | a | os | as )"
    r"(?:\W+\w+){0,3}?\W+"
    r"(?:comprimidos?|gotas?|mg|miligramas?|microgramas?|mcg|unidades?|ml|mililitros?|"
    r"capsulas?|jatos?|puffs?|doses?)\b|\b(?:qual a|qual|que) dose\b|\bdose maxima\b"
)


def _timings(state: AgentState, **new: float) -> dict[str, float]:
    timings = dict(state.get("timings_ms", {}))
    timings.update(new)
    return timings


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def screen(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    """Personal data out, names recognised, follow-up context, emergency assessed."""
    deps = runtime.context
    started = time.perf_counter()
    query = clean_question(state["question"])
    mentions = deps.vocabulary.find(query)
    carried, context_cards = follow_up_topic(
        query, mentions, state.get("history", []), deps.vocabulary
    )
    search_query = deps.vocabulary.normalise(query)
    topic = None
    if carried:
        topic = carried[0].display
        search_query = f"{carried[0].name}: {search_query}"
    elif context_cards:
        topic = None  # the previous cards steer retrieval; no name to announce
    # The emergency exemplars are embedded accent-folded and lower-cased, so the question
    # is compared to them the same way: "NAO CONSIGO PUXAR O AR" embedded as typed sat at
    # 0.31 from the nearest heart-attack exemplars, and at 0.59 folded.
    # Retrieval reads the same folded vector unless a name was normalised: on the tuning
    # half, folded and as-typed queries ranked the same (recall@1 0.914 both), and one
    # text fewer to embed is ~2 ms of the ask.
    folded = fold(query)
    texts = [folded] if search_query == query else [folded, search_query]
    asked = what_is_asked(query, mentions)
    parts = clauses(query)
    parts = parts if len(parts) >= 2 else []
    # one batched call: the question folded, as searched, what it asks, and its parts (a part
    # that names nothing is read with the message's first name: "e ele atrapalha o remédio
    # da tireoide?" after "o omeprazol é antes do café?")
    extra = ([asked] if asked else []) + [
        fold(part_text(p, mentions, deps.vocabulary)) for p in parts
    ]
    vectors = deps.retriever.embedder.embed([*texts, *extra])
    assessment = deps.detector.assess(state["question"], vectors[0])
    # A follow-up names nothing of its own, so it is all "what is asked": retrieval reads it
    # with the carried name in front ("metformina: e se der dor de barriga?"), and the
    # sentences are chosen by the follow-up's own words (vectors[0]). With the name, the
    # card's "A metformina ... deve ser tomada junto com as refeições" opened that answer.
    asked_vector = vectors[len(texts)] if asked else (vectors[0] if carried else None)
    return {
        "folded_vector": vectors[0],
        "clauses": list(zip(parts, vectors[len(vectors) - len(parts) :], strict=True)),
        "query": query,
        "search_query": search_query,
        "topic": topic,
        "query_vector": vectors[len(texts) - 1],
        "asked_vector": asked_vector,
        "emergency": assessment.kind,
        "uncertain": assessment.uncertain,
        "emergency_signals": {"subkind": assessment.subkind, **assessment.signals},
        "mentions": mentions,
        "carried": carried,
        "context_cards": context_cards,
        "timings_ms": _timings(state, screen=_ms(started)),
    }


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


def _emergency_cards(state: AgentState, lexicon: CardLexicon) -> list[str]:
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


def retrieve(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    top_k = state.get("top_k") or deps.settings.top_k
    lexicon = deps.lexicon.get()
    mentions: list[Mention] = state.get("mentions", [])
    carried: list[Entry] = state.get("carried", [])
    names = focus_names(mentions, carried)
    named = list(dict.fromkeys(m.entry for m in mentions if m.entry.covered)) or carried
    boost = {
        card: NAME_BOOST
        for card, weight in mention_cards(
            lexicon, [Mention(e, e.name, 0, 0, True) for e in named]
        ).items()
        if weight >= 1.0  # cards about the name; a mere mention in the text gets nothing
    }
    for card in state.get("context_cards", []):
        boost[card] = max(boost.get(card, 0.0), CONTEXT_BOOST)
    # Known patient questions near this one vote for the card that answers them (tuning half:
    # recall@1 0.926 -> 0.952 leave-one-out, at weight 0.5 over a similarity of 0.5, 3 nearest;
    # 0.1-0.3 and floors 0.6-0.7 gained less).
    votes = deps.bank.card_votes(np.asarray(state["query_vector"]), state["search_query"], k=BANK_K)
    for card, sim in votes.items():
        if sim > BANK_FLOOR:
            boost[card] = boost.get(card, 0.0) + BANK_WEIGHT * (sim - BANK_FLOOR)
    emergency_cards = _emergency_cards(state, lexicon)
    for card in emergency_cards:
        boost[card] = boost.get(card, 0.0) + EMERGENCY_BOOST
    result = deps.retriever.search(
        state["search_query"], top_k * WIDEN, vector=state["query_vector"]
    )
    terms = content_terms(state["search_query"])
    lexical = {c.id: lexicon.coverage(terms, c.id) for c in result.candidates}
    candidates = rerank(result.candidates, boost, lexical, top_k)
    about = {
        c
        for c, w in mention_cards(lexicon, [Mention(e, e.name, 0, 0, True) for e in names]).items()
        if w >= 1.0
    }
    # The answerability decision (next node) is the gate; a card this far from the
    # question is never cited even when the decision says the cards cover it.
    parents = [c for c in candidates if c.score >= CITE_FLOOR or c.id in about]
    if emergency_cards:
        about = set(emergency_cards)  # the answer to an emergency stays on its signs
    return {
        "candidates": candidates,
        "parents": parents,
        "lexicon": lexicon,
        "about": about,
        "timings_ms": _timings(state, **result.timings_ms),
    }


def _must_answer(state: AgentState, lexicon: CardLexicon, focus: Focus) -> bool:
    """Low mood told ("ando muito triste, sem vontade de nada faz semanas") is answered
    whatever the decision's score, when a card on where to get help (topics saúde mental,
    CVV) is among those it may cite: the line on where to find help comes first."""
    parents = state.get("parents", [])
    if state.get("emergency") or not parents:
        return False
    if focus.low_mood:
        return any(
            {fold(t) for t in lexicon.cards[p.id].topics} & SUPPORT_TOPICS
            for p in parents
            if p.id in lexicon.cards
        )
    return False


def _covered(state: AgentState, lexicon: CardLexicon, answerable: bool) -> bool:
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
        and top in _emergency_cards(state, lexicon)
    )
    covered = answerable or signs_card
    if covered and emergency == "self_harm":
        # Whatever found it, rules or resemblance: "tomar a caixa toda de clonazepam com
        # cachaça resolve de vez?" (found by resemblance) was answered with the sleep card's
        # "a mistura aumenta muito a sedação e pode deprimir a respiração".
        card = lexicon.cards.get(top)
        return card is not None and bool({fold(t) for t in card.topics} & SUPPORT_TOPICS)
    by_rule = state.get("emergency_signals", {}).get("by") == "concept"
    if covered and by_rule and emergency == "poisoning":
        return top in _emergency_cards(state, lexicon)
    return covered


def decide(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    """Answer, not covered, or emergency (which always escalates, and answers too when the
    cards cover the question)."""
    deps = runtime.context
    started = time.perf_counter()
    lexicon: CardLexicon = state["lexicon"]
    mentions: list[Mention] = state.get("mentions", [])
    carried: list[Entry] = state.get("carried", [])
    mentions = asked_mentions(state["query"], mentions)
    if carried:
        mentions = mentions + [Mention(e, e.name, 0, 0, True) for e in carried]
    # A long message (a story, then the question) is judged on its end, where patients ask.
    text = state["search_query"]
    if len(text) > LONG_QUESTION:
        text = text[-LONG_QUESTION:].split(" ", 1)[-1]
    focus = make_focus(state, deps)
    decision = answerability(
        text,
        mentions,
        state.get("candidates", []),
        lexicon,
        np.asarray(state["query_vector"]),
        deps.vectors.get,
        deps.bank,
        deps.model,
        original=state["query"],
        answer=answer_signals(focus, deps),
    )
    answerable = decision.outcome == "answer" or _must_answer(state, lexicon, focus)
    covered = _covered(state, lexicon, answerable)
    dose = not state.get("emergency") and bool(DOSE_ASKED.search(fold(state["query"])))
    if dose:
        # The cards never give a dose, and a line about the medicine reads as if they did
        # ("quantas unidades de insulina eu aplico?" got the injection sites): not covered,
        # and the answer says why.
        covered = False
        decision.uncovered_terms = ["a dose a tomar (quem define é o médico)"]
        decision.reason = "A pergunta pede uma dose, e os cartões não indicam doses."
    outcome = "emergency" if state.get("emergency") else ("answer" if covered else "not_covered")
    reason = decision.reason
    if outcome == "emergency":
        what = rules().kinds[str(state["emergency"])].label
        reason = f"A pergunta descreve uma possível {what}: encaminhada à emergência. {reason}"
    signals = {**decision.signals, "emergency": state.get("emergency_signals", {})}
    suggestions = []
    if not covered:
        for c in state.get("candidates", [])[:3]:
            if c.score >= deps.settings.min_similarity * 0.6:
                suggestions.append(
                    {
                        "id": c.id,
                        "title": c.title,
                        "question": c.title,
                    }
                )
    return {
        "focus": focus,
        "decision": {"outcome": outcome, "covered": covered, "reason": reason, "signals": signals},
        "uncovered_terms": [] if covered else decision.uncovered_terms,
        "suggestions": [] if covered or outcome == "emergency" else suggestions,
        "timings_ms": _timings(state, decide=_ms(started)),
    }


def route(state: AgentState) -> Literal["generate", "refuse"]:
    return "generate" if state["decision"]["covered"] else "refuse"


def refuse(state: AgentState) -> dict[str, Any]:
    text = REFUSAL if state.get("emergency") else not_covered(state.get("uncovered_terms", []))
    return {
        "answer": text,
        "citations": [],
        "citation_warnings": [],
        "refused": True,
        "generator": "none",
    }


def generate(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    started = time.perf_counter()
    focus = state.get("focus") or make_focus(state, deps)
    parents: list[ContextChunk] = state["parents"]
    query_vector = np.asarray(state["query_vector"])
    draft = deps.generator.generate(state["query"], parents, query_vector, focus)
    return {
        "focus": focus,
        "draft": draft.text,
        "draft_citations": draft.citations,
        "generator": draft.generator,
        "citation_warnings": draft.warnings,
        "uncovered_parts": draft.uncovered,
        "timings_ms": _timings(state, generate=_ms(started)),
    }


def verify(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    started = time.perf_counter()
    checked = verify_draft(
        state["draft"],
        state["draft_citations"],
        state["parents"],
        deps.vectors,
        deps.settings.grounding_min_similarity,
    )
    warnings = list(state.get("citation_warnings", [])) + checked.warnings
    answer, citations = checked.answer, list(checked.citations)
    focus: Focus | None = state.get("focus")
    if (
        focus
        and focus.need
        and citations
        and not any(is_guidance(s, focus.need) for s in sentences(answer))
        # the extractive answer already quotes its card's own words on stopping; a model's
        # answer still gets the cards' explicit "não pare por conta própria"
        and not (
            focus.need == "stop"
            and state.get("generator") == "extractive"
            and any(speaks_to_stop(s) for s in sentences(answer))
        )
    ):
        # Whoever wrote the answer, a stop/double/change question gets the cards' guidance.
        found = guidance_sentence(
            state["parents"], focus, deps.vectors, np.asarray(state["query_vector"]), answer
        )
        if found:
            # after the answer: the card that answers keeps the first citation
            answer = f"{answer} {found[0]} [cite:{found[1]}]"
            citations = list(dict.fromkeys([*citations, found[1]]))
    if not citations and focus and focus.need:
        # Nothing verified is left, but a stop/double/change question still gets the
        # cards' guidance rather than a refusal.
        found = guidance_sentence(
            state["parents"], focus, deps.vectors, np.asarray(state["query_vector"])
        )
        if found:
            answer, citations = f"{found[0]} [cite:{found[1]}]", [found[1]]
    if not citations:
        return {
            "answer": REFUSAL,
            "citations": [],
            "refused": True,
            "citation_warnings": warnings + ["no verified citation left: answer refused"],
            "timings_ms": _timings(state, verify=_ms(started)),
        }
    return {
        "answer": answer,
        "citations": citations,
        "refused": False,
        "citation_warnings": warnings,
        "timings_ms": _timings(state, verify=_ms(started)),
    }


def respond(state: AgentState) -> dict[str, Any]:
    """The escalation first; the topic a follow-up assumed; then the answer."""
    answer = state["answer"]
    if state.get("topic") and not state.get("refused"):
        answer = topic_prefix(str(state["topic"])) + answer
    if state.get("uncovered_parts") and not state.get("refused"):
        answer = f"{answer}\n\n{uncovered_part(state['uncovered_parts'])}"
    if state.get("uncertain") and not state.get("emergency"):
        # a reading too weak to escalate on: the answer, then one calm line
        answer = f"{answer}\n\n{CALM_LINE[str(state['uncertain'])]}"
    kind = state.get("emergency")
    if kind:
        # "The knowledge base does not cover this" reads coldly after an escalation.
        answer = ESCALATION[kind] if state.get("refused") else f"{ESCALATION[kind]}\n\n{answer}"
    return {"answer": answer}
