"""The agent graph:

    screen -> retrieve -> decide --(covered)--> generate -> verify -> respond
                                 \\--(not covered)--> refuse -------> respond

`screen` strips personal data, recognises names and follow-ups and assesses emergencies;
`decide` is the answerability decision; `respond` puts an escalation first. Nodes are plain
functions (app.agent.nodes) of the state and the run's dependencies (LangGraph runtime
context); the wiring below reads like the diagram above.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from app.agent.nodes import (
    AgentDeps,
    decide,
    generate,
    refuse,
    respond,
    retrieve,
    route,
    screen,
    verify,
)
from app.agent.state import AgentState, Turn


def build_graph() -> Any:
    graph = StateGraph(AgentState, context_schema=AgentDeps)
    graph.add_node("screen", screen)
    graph.add_node("retrieve", retrieve)
    graph.add_node("decide", decide)
    graph.add_node("generate", generate)
    graph.add_node("verify", verify)
    graph.add_node("refuse", refuse)
    graph.add_node("respond", respond)
    graph.add_edge(START, "screen")
    graph.add_edge("screen", "retrieve")
    graph.add_edge("retrieve", "decide")
    graph.add_conditional_edges("decide", route, ["generate", "refuse"])
    graph.add_edge("generate", "verify")
    graph.add_edge("verify", "respond")
    graph.add_edge("refuse", "respond")
    graph.add_edge("respond", END)
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
