"""The agent graph:

    screen -> retrieve -> decide --(covered)--> answer  (generate, verify, respond)
                                 \\--(not covered)--> decline (refuse, respond)

`screen` strips personal data, recognises names and follow-ups and assesses emergencies;
`decide` is the answerability decision; `respond` puts an escalation first. The steps are
plain functions (app.agent.nodes) of the state and the run's dependencies (LangGraph runtime
context); the wiring below reads like the diagram above.

The steps after the decision run in sequence with no branch between them, so they share one
graph node each way: every node LangGraph runs costs about 0.25 ms of bookkeeping (reading
and writing the state's channels, task and checkpoint records), and four nodes instead of
six took 0.55 ms off an ask (paired, 800 golden questions, issue 17). `make bench` reports
what LangGraph costs this graph (docs/benchmarks.md, section 1). bench/floor.py `Direct` runs
the same steps without LangGraph to measure it: keep the two in step.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from app.agent.deps import AgentDeps
from app.agent.nodes import (
    decide,
    generate,
    refuse,
    respond,
    retrieve,
    route,
    verify,
)
from app.agent.screen import screen
from app.agent.state import AgentState, Turn


def _then(state: AgentState, update: dict[str, Any], step: Any, *args: Any) -> dict[str, Any]:
    """Run one more step on the state as updated so far; the updates accumulate."""
    merged: AgentState = {**state, **update}  # type: ignore[typeddict-item]
    return {**update, **step(merged, *args)}


def answer(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    """generate -> verify -> respond."""
    update = generate(state, runtime)
    update = _then(state, update, verify, runtime)
    return _then(state, update, respond)


def decline(state: AgentState) -> dict[str, Any]:
    """refuse -> respond."""
    return _then(state, refuse(state), respond)


def build_graph() -> Any:
    graph = StateGraph(AgentState, context_schema=AgentDeps)
    graph.add_node("screen", screen)
    graph.add_node("retrieve", retrieve)
    graph.add_node("decide", decide)
    graph.add_node("answer", answer)
    graph.add_node("decline", decline)
    graph.add_edge(START, "screen")
    graph.add_edge("screen", "retrieve")
    graph.add_edge("retrieve", "decide")
    graph.add_conditional_edges("decide", route, {"generate": "answer", "refuse": "decline"})
    graph.add_edge("answer", END)
    graph.add_edge("decline", END)
    return graph.compile()


class Agent:
    """The compiled graph plus its dependencies, one per process."""

    def __init__(self, deps: AgentDeps):
        self.deps = deps
        self.graph = build_graph()

    def ask(
        self, question: str, top_k: int | None = None, history: list[Turn] | None = None
    ) -> AgentState:
        state: AgentState = {
            "question": question,
            "top_k": top_k or self.deps.settings.top_k,
            "history": list(history or []),
        }
        result: AgentState = self.graph.invoke(state, context=self.deps)
        return result
