"""The agent's state: what flows through the graph retrieve -> gate -> generate ->
verify -> respond."""

from __future__ import annotations

from typing import Any, TypedDict

from app.retrieval.models import ContextChunk


class AgentState(TypedDict, total=False):
    question: str
    """The user's question, trimmed."""
    query: str
    """The question as retrieval and generation see it: markup stripped, personal data
    replaced by placeholders (app.agent.safety.clean_question)."""
    top_k: int
    """How many parent cards to retrieve."""
    emergency: str | None
    """Kind of emergency the question describes ("medical" or "self_harm"), if any."""
    candidates: list[ContextChunk]
    """Top parents before the min_similarity gate (reported, never cited)."""
    parents: list[ContextChunk]
    """Parents that passed the gate: the only cards the answer may cite."""
    query_vector: Any
    """The question's embedding (numpy array), reused by the generator."""
    draft: str
    """The generator's answer with [cite:card-X] markers, before verification."""
    draft_citations: list[str]
    """Card ids the generator says it used (structured output), before verification."""
    answer: str
    """The verified answer shown to the user."""
    citations: list[str]
    """Verified card ids, in order of first citation."""
    citation_warnings: list[str]
    """What verification removed or changed, in words."""
    refused: bool
    """True when the knowledge base does not cover the question."""
    generator: str
    """Which generator produced the answer ("extractive", "openai", or a fallback)."""
    timings_ms: dict[str, float]
    """Per-step timings for metrics and benchmarks."""
    debug: dict[str, Any]
    """Anything else worth reporting (e.g. the fallback reason)."""
