"""The agent graph:

    retrieve -> gate --(no card passes min_similarity)--> refuse -> respond
                     \\--(cards)--> generate -> verify -> respond

Nodes are plain functions of the state returning a partial update; the wiring is at the
bottom and reads like the diagram above.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from langgraph.graph import END, START, StateGraph

from app.agent.generators import (
    ExtractiveGenerator,
    Generator,
    OpenAICompatibleGenerator,
    SentenceVectors,
)
from app.agent.safety import ESCALATION, REFUSAL, clean_question, detect_emergency
from app.agent.state import AgentState
from app.agent.verify import verify_draft
from app.core.config import Settings
from app.retrieval.retriever import Retriever


@dataclass
class AgentDeps:
    retriever: Retriever
    generator: Generator
    vectors: SentenceVectors
    settings: Settings


def _timed(state: AgentState, key: str, started: float) -> dict[str, float]:
    timings = dict(state.get("timings_ms", {}))
    timings[key] = (time.perf_counter() - started) * 1000
    return timings


def build_graph(deps: AgentDeps) -> Any:
    def retrieve(state: AgentState) -> dict[str, Any]:
        query = clean_question(state["question"])
        result = deps.retriever.search(query, state.get("top_k"))
        timings = dict(state.get("timings_ms", {}))
        timings.update(result.timings_ms)
        return {
            "query": query,
            "candidates": result.candidates,
            "parents": result.parents,
            "query_vector": result.query_vector,
            "emergency": detect_emergency(state["question"]),
            "timings_ms": timings,
        }

    def gate(state: AgentState) -> Literal["generate", "refuse"]:
        return "generate" if state.get("parents") else "refuse"

    def refuse(state: AgentState) -> dict[str, Any]:
        return {
            "answer": REFUSAL,
            "citations": [],
            "citation_warnings": [],
            "refused": True,
            "generator": "none",
        }

    def generate(state: AgentState) -> dict[str, Any]:
        started = time.perf_counter()
        draft = deps.generator.generate(
            state["query"], state["parents"], np.asarray(state["query_vector"])
        )
        return {
            "draft": draft.text,
            "draft_citations": draft.citations,
            "generator": draft.generator,
            "citation_warnings": draft.warnings,
            "timings_ms": _timed(state, "generate", started),
        }

    def verify(state: AgentState) -> dict[str, Any]:
        started = time.perf_counter()
        checked = verify_draft(
            state["draft"],
            state["draft_citations"],
            state["parents"],
            deps.vectors,
            deps.settings.grounding_min_similarity,
        )
        warnings = list(state.get("citation_warnings", [])) + checked.warnings
        if not checked.citations:
            return {
                "answer": REFUSAL,
                "citations": [],
                "refused": True,
                "citation_warnings": warnings + ["no verified citation left: answer refused"],
                "timings_ms": _timed(state, "verify", started),
            }
        return {
            "answer": checked.answer,
            "citations": checked.citations,
            "refused": False,
            "citation_warnings": warnings,
            "timings_ms": _timed(state, "verify", started),
        }

    def respond(state: AgentState) -> dict[str, Any]:
        kind = state.get("emergency")
        if not kind:
            return {}
        if state.get("refused"):
            # "The knowledge base does not cover this" reads coldly after an escalation.
            return {"answer": ESCALATION[kind]}
        return {"answer": f"{ESCALATION[kind]}\n\n{state['answer']}"}

    graph = StateGraph(AgentState)
    graph.add_node("retrieve", retrieve)
    graph.add_node("refuse", refuse)
    graph.add_node("generate", generate)
    graph.add_node("verify", verify)
    graph.add_node("respond", respond)
    graph.add_edge(START, "retrieve")
    graph.add_conditional_edges("retrieve", gate, ["generate", "refuse"])
    graph.add_edge("generate", "verify")
    graph.add_edge("verify", "respond")
    graph.add_edge("refuse", "respond")
    graph.add_edge("respond", END)
    return graph.compile()


class Agent:
    """The compiled graph plus its dependencies, one per process."""

    def __init__(self, deps: AgentDeps):
        self.deps = deps
        self.graph = build_graph(deps)

    def ask(self, question: str, top_k: int | None = None) -> AgentState:
        state: AgentState = {"question": question, "top_k": top_k or self.deps.settings.top_k}
        result: AgentState = self.graph.invoke(state)
        return result


def make_agent(retriever: Retriever, generator: Generator, settings: Settings) -> Agent:
    if isinstance(generator, ExtractiveGenerator):
        vectors = generator.vectors
    elif isinstance(generator, OpenAICompatibleGenerator):
        vectors = generator.fallback.vectors
    else:
        raise TypeError(f"unknown generator {generator!r}")
    return Agent(AgentDeps(retriever, generator, vectors, settings))
