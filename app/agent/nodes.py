"""The graph's nodes: plain functions of the state and the run's dependencies
(`runtime.context`, an AgentDeps), each returning a partial update. Wired in graph.py.

The first node, `screen`, is app.agent.screen. What they use lives by job: ranking
(app.agent.ranking), the emergency and support cards (app.agent.topics), what the decision
weighs (app.agent.decision), the focus and the guidance (app.agent.generators), the texts
(app.agent.messages), the numbers (app.agent.tunables)."""

from __future__ import annotations

import time
from typing import Any, Literal

import numpy as np
from langgraph.runtime import Runtime

from app.agent.answerability import decide as answerability
from app.agent.decision import (
    answer_signals,
    cards_cover,
    judged_mentions,
    judged_text,
    must_answer,
    refuses_dose,
    suggestions,
)
from app.agent.deps import AgentDeps
from app.agent.followup import example_vector, focus_names
from app.agent.generators import Focus, add_guidance, make_focus
from app.agent.messages import (
    CALM_LINE,
    ESCALATION,
    REFUSAL,
    not_covered,
    topic_prefix,
    uncovered_part,
)
from app.agent.partial import judge_parts, partial_answer
from app.agent.ranking import about_cards, card_signals, named_entries, rerank
from app.agent.state import AgentState
from app.agent.timing import elapsed_ms, timings
from app.agent.topics import emergency_cards
from app.agent.tunables import CITE_FLOOR, WIDEN
from app.agent.verify import verify_draft
from app.core.vocabulary import Entry, Mention
from app.retrieval.coverage import CardLexicon
from app.retrieval.models import ContextChunk
from app.safety.rules import rules


def retrieve(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    top_k = state.get("top_k") or deps.settings.top_k
    lexicon = deps.lexicon.get()
    mentions: list[Mention] = state.get("mentions", [])
    carried: list[Entry] = state.get("carried", [])
    emergency = emergency_cards(state, lexicon)
    include = about_cards(lexicon, named_entries(state))  # always weighed by the ranker
    result = deps.retriever.search(
        state["search_query"], top_k * WIDEN, vector=state["query_vector"], include=include
    )
    # the sentences' example questions, once: read by card (ranker) and sentence (scorer)
    exclude = getattr(deps.sentences, "exclude_author", None)
    examples = deps.examples()
    example_sims = examples.similarities(example_vector(state), exclude_author=exclude)
    # a follow-up's own words too: the carried name in front pulls its card's examples
    own_sims = (
        examples.similarities(np.asarray(state["folded_vector"]), exclude_author=exclude)
        if carried
        else None
    )
    signals = card_signals(
        state,
        lexicon,
        deps.bank,
        deps.vocabulary,
        result.candidates,
        example_sims,
        emergency,
        examples.cards(),
        own_sims,
    )
    candidates = rerank(result.candidates, signals, top_k, deps.card_ranker)
    about = about_cards(lexicon, focus_names(mentions, carried))
    # The answerability decision (next node) is the gate; a card this far from the
    # question is never cited even when the decision says the cards cover it.
    parents = [c for c in candidates if c.score >= CITE_FLOOR or c.id in about]
    if emergency:
        about = set(emergency)  # the answer to an emergency stays on its signs
    return {
        "candidates": candidates,
        "parents": parents,
        "lexicon": lexicon,
        "about": about,
        "example_sims": example_sims,
        "timings_ms": timings(state, **result.timings_ms),
    }


def decide(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    """Answer, not covered, or emergency (which always escalates, and answers too when the
    cards cover the question)."""
    deps = runtime.context
    started = time.perf_counter()
    lexicon: CardLexicon = state["lexicon"]
    focus = make_focus(state, deps)
    decision = answerability(
        judged_text(state["search_query"]),
        judged_mentions(state),
        state.get("candidates", []),
        lexicon,
        np.asarray(state["query_vector"]),
        deps.vectors.get,
        deps.bank,
        deps.model,
        original=state["query"],
        answer=answer_signals(focus, deps),
    )
    answerable = decision.outcome == "answer" or must_answer(state, lexicon, focus)
    covered = cards_cover(state, lexicon, answerable)
    dosed = refuses_dose(state, decision)
    if dosed:
        covered = False  # the answer says why (decision.reason)
    # a message of several parts the cards answer in part: those parts, and the others
    # named (app.agent.partial), whether the whole message was judged covered or not
    judged = [] if dosed else judge_parts(state, deps, focus, decision.probability)
    partial = partial_answer(state, deps, focus, judged, covered)
    if partial is not None:
        covered, decision.reason = True, partial.reason
    outcome = "emergency" if state.get("emergency") else ("answer" if covered else "not_covered")
    reason = decision.reason
    if outcome == "emergency":
        what = rules().kinds[str(state["emergency"])].label
        reason = f"A pergunta descreve uma possível {what}: encaminhada à emergência. {reason}"
    signals = {**decision.signals, "emergency": state.get("emergency_signals", {})}
    if judged:
        signals["parts"] = [{"text": j.text, **j.features} for j in judged]
    return {
        "focus": focus,
        "parents": partial.parents if partial is not None else state.get("parents", []),
        "uncovered_clauses": partial.uncovered if partial is not None else [],
        "decision": {"outcome": outcome, "covered": covered, "reason": reason, "signals": signals},
        "uncovered_terms": [] if covered else decision.uncovered_terms,
        "suggestions": []
        if covered or outcome == "emergency"
        else suggestions(state.get("candidates", []), deps.settings.min_similarity),
        "timings_ms": timings(state, decide=elapsed_ms(started)),
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
        "uncovered_parts": list(
            dict.fromkeys([*draft.uncovered, *state.get("uncovered_clauses", [])])
        ),
        "timings_ms": timings(state, generate=elapsed_ms(started)),
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
    focus: Focus | None = state.get("focus")
    # Whoever wrote the answer, a stop/double/change question gets the cards' guidance,
    # and gets it rather than a refusal when nothing verified is left.
    answer, citations = add_guidance(
        checked.answer,
        list(checked.citations),
        state["parents"],
        focus,
        deps.vectors,
        np.asarray(state["query_vector"]),
        state.get("generator"),
    )
    if not citations:
        return {
            "answer": REFUSAL,
            "citations": [],
            "refused": True,
            "citation_warnings": warnings + ["no verified citation left: answer refused"],
            "timings_ms": timings(state, verify=elapsed_ms(started)),
        }
    return {
        "answer": answer,
        "citations": citations,
        "refused": False,
        "citation_warnings": warnings,
        "timings_ms": timings(state, verify=elapsed_ms(started)),
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
