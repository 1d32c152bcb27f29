"""The agent's state: what flows through the graph

screen -> retrieve -> decide -> (generate -> verify | not_covered) -> respond
"""

from __future__ import annotations

from typing import Any, TypedDict

from app.retrieval.models import ContextChunk


class Turn(TypedDict):
    """One earlier turn of the conversation, as the client sends it back."""

    question: str
    citations: list[str]


class AgentState(TypedDict, total=False):
    question: str
    """The user's question, trimmed (never stored, logged or sent to a model)."""
    history: list[Turn]
    """Earlier turns of the same conversation, oldest first (may be empty)."""
    top_k: int
    """How many parent cards to retrieve."""
    query: str
    """The question as retrieval, generation, logs and storage see it: markup and personal
    data removed (app.safety.pii). The only form of the question that may leave memory."""
    search_query: str
    """`query` with recognised medicine names normalised and, for a follow-up, the topic
    carried over from the previous turn: what is embedded and matched."""
    topic: str | None
    """The topic a follow-up was assumed to be about ("levotiroxina"), or None."""
    mentions: list[Any]
    """Names the question mentions (app.core.vocabulary.Mention), covered or not."""
    carried: list[Any]
    """For a follow-up: the covered names (vocabulary entries) carried from earlier turns."""
    context_cards: list[str]
    """For a follow-up: the cards the previous turn cited (favoured in retrieval)."""
    earlier_cards: list[str]
    """For a later turn that is not read as a follow-up (it names a medicine of its own, or
    is long): the cards the previous turn cited, a signal of the card ranker."""
    lexicon: Any
    """The card lexicon of the build that was searched (app.retrieval.coverage)."""
    about: set[str]
    """Cards about the names the question (or its carried topic) mentions."""
    emergency: str | None
    """Kind of emergency the question describes ("medical", "poisoning", "self_harm")."""
    uncertain: str | None
    """A reading of an emergency too weak to escalate on ("medical", "poisoning",
    "self_harm"): the answer comes with one calm line on where to get help."""
    emergency_signals: dict[str, Any]
    """Why the emergency detector decided what it did (for support staff)."""
    candidates: list[ContextChunk]
    """Top parents (reported, never cited unless they are also in `parents`)."""
    parents: list[ContextChunk]
    """Parents the answer may use and cite."""
    query_vector: Any
    """The embedding of `search_query` (numpy array), reused by the decision and the
    generator."""
    folded_vector: Any
    """The embedding of `query` accent-folded and lower-cased: what the emergency exemplars
    and the example questions of card sentences are compared with."""
    clauses: list[tuple[str, Any]]
    """For a question of several parts (app.agent.parts): each part's text and embedding."""
    example_sims: dict[str, float]
    """The best similarity of the question to each card sentence's example questions (by
    sentence id), computed once in retrieve: the card ranker and the sentence scorer read it."""
    asked_vector: Any
    """The embedding of the question without the medicines it names (what is asked about
    them); for a follow-up that carries the previous turn's medicine, the follow-up's own
    words; else None. The extractive generator weighs card sentences by it too."""
    decision: dict[str, Any]
    """The answerability decision: outcome ("answer", "not_covered", "emergency"), a plain
    reason, and the signals it used."""
    uncovered_terms: list[str]
    """What the question names that the cards do not cover (with a not-covered outcome)."""
    suggestions: list[dict[str, str]]
    """Close covered topics offered with a not-covered outcome (not citations)."""
    focus: Any
    """What the answer stays on (app.agent.generators.Focus): named medicines, their cards,
    and what the patient needs ("stop", "double", "change", "missed")."""
    draft: str
    """The generator's answer with [cite:card-X] markers, before verification."""
    draft_citations: list[str]
    """Card ids the generator says it used (structured output), before verification."""
    uncovered_parts: list[str]
    """Parts of the question that no card answers (named after the answer)."""
    uncovered_clauses: list[str]
    """Parts the decision found no card for, when it answers the others (app.agent.partial)."""
    answer: str
    """The verified answer shown to the user."""
    citations: list[str]
    """Verified card ids, in order of first citation."""
    citation_warnings: list[str]
    """What verification removed or changed, in words."""
    refused: bool
    """True when the answer is not drawn from the cards (not covered, or nothing verified)."""
    generator: str
    """Which generator produced the answer ("extractive", "openai", a fallback, or "none")."""
    timings_ms: dict[str, float]
    """Per-step timings for metrics and benchmarks."""
