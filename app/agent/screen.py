"""The graph's first node: personal data out, names recognised, the follow-up's context,
the emergency assessed, and every text the later nodes read embedded in one batched call."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from app.agent.deps import AgentDeps
from app.agent.followup import conversation, elliptical, part_text, what_is_asked
from app.agent.parts import clauses
from app.agent.state import AgentState, Turn
from app.agent.timing import elapsed_ms, timings
from app.core.text import fold
from app.core.vocabulary import Mention
from app.safety.conversation import assess_turn, earlier_texts
from app.safety.pii import clean_question


def screen(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    """Personal data out, names recognised, follow-up context, emergency assessed."""
    deps = runtime.context
    started = time.perf_counter()
    typed = clean_question(state["question"])
    history = state.get("history", [])
    mentions = deps.vocabulary.find(typed)
    carried, context_cards, earlier_cards = conversation(
        typed, mentions, history, deps.vocabulary, deps.lexicon
    )
    query, mentions = asked_turn(typed, mentions, history, deps)
    rewritten = query != typed
    search_query = deps.vocabulary.normalise(query)
    if carried:
        search_query = f"{carried[0].name}: {search_query}"
    # The emergency exemplars are embedded accent-folded and lower-cased, and so is the
    # question: "NAO CONSIGO PUXAR O AR" as typed sat at 0.31 from the nearest heart-attack
    # exemplars, folded at 0.59. Retrieval reads the same vector unless a name was normalised
    # (on the tuning half both ranked the same, recall@1 0.914; one text fewer is ~2 ms).
    folded = fold(query)
    texts = [folded] if search_query == query else [folded, search_query]
    asked = what_is_asked(query, mentions)
    parts = clauses(query)
    parts = parts if len(parts) >= 2 else []
    # one batched call: the question folded, as searched, what it asks, and its parts (a part
    # that names nothing is read with the message's first name: "e ele atrapalha o remédio
    # da tireoide?" after "o omeprazol é antes do café?"); then the earlier messages: a
    # crisis told before is read again (app.safety.conversation)
    read_parts = [fold(part_text(p, mentions, deps.vocabulary)) for p in parts]
    extra = ([asked] if asked else []) + read_parts
    earlier, before = earlier_texts(history)
    own = [fold(typed)] if rewritten else []
    embedded = deps.retriever.embedder.embed([*texts, *extra, *own, *earlier])
    n = len(texts) + len(extra)
    vectors, read = embedded[:n], embedded[n + len(own) :]
    question, pairs = state["question"], list(zip(earlier, read, strict=True))
    vector = embedded[n] if rewritten else vectors[0]
    assessment = assess_turn(deps.detector, question, typed, vector, carried, pairs, before)
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
        "topic": carried[0].display if carried else None,
        "query_vector": vectors[len(texts) - 1],
        "asked_vector": asked_vector,
        "emergency": assessment.kind,
        "uncertain": assessment.uncertain,
        "emergency_signals": {"subkind": assessment.subkind, **assessment.signals},
        "mentions": mentions,
        "carried": carried,
        "context_cards": context_cards,
        "earlier_cards": earlier_cards,
        "timings_ms": timings(state, screen=elapsed_ms(started)),
    }


def asked_turn(
    typed: str, mentions: list[Mention], history: list[Turn], deps: AgentDeps
) -> tuple[str, list[Mention]]:
    """The question as answered, and its names: a follow-up that only names a medicine ("E o
    AAS dela?") is the question before it about that one (app.agent.followup.elliptical).
    The safety reading stays on the message as typed (its own text, embedded last)."""
    rewritten = elliptical(typed, mentions, history, deps.vocabulary)
    return (rewritten, deps.vocabulary.find(rewritten)) if rewritten else (typed, mentions)
