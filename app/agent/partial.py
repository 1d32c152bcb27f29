"""A question of several parts that the cards answer only in part ("aradois pode tomar com
comida? e ele dá tosse?"): the covered parts are answered and the others named, instead of
refusing the whole message (issue 24).

The whole message is judged first. Only when that says "not covered" and the message asks
two or more things (app.agent.parts.clauses) is each part judged on its own, as the whole
is: retrieved with its own vector, ranked, its sentences scored by the sentence scorer, and
put to the answerability model. When some parts are covered and some are not, the answer
is made from the covered parts (their cards join those the answer may cite) and the others
are named in the patient's words. When every part, or none, is covered on its own, the
whole message's decision stands: this path only ever turns a refusal into a partial answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.agent.answerability import decide as answerability
from app.agent.decision import asked_mentions, judged_text
from app.agent.deps import AgentDeps
from app.agent.followup import part_text
from app.agent.generators import Focus
from app.agent.ranking import boosts, lexical_coverage, rerank
from app.agent.scorer import Question
from app.agent.state import AgentState
from app.agent.tunables import CITE_FLOOR, WIDEN
from app.core.vocabulary import Mention
from app.retrieval.coverage import CardLexicon
from app.retrieval.models import ContextChunk


@dataclass
class PartialAnswer:
    """Which parts the cards answer, the others in the patient's words, and the cards the
    covered parts may be answered from."""

    covered: list[Question]
    uncovered: list[str]
    parents: list[ContextChunk] = field(default_factory=list)
    reason: str = ""


def _answer_signals(question: Question, pool: list[Any], deps: AgentDeps) -> dict[str, float]:
    """As decision.answer_signals, for one part: the best P(answers) of a sentence of its
    cards, and the best similarity of the part to their sentences' example questions."""
    if not pool:
        return {"answer_p": 0.0, "example_sim": 0.0}
    cards = {c.card for c in pool}
    exclude = getattr(deps.sentences, "exclude_author", None)
    sims = deps.examples().similarities(question.folded, exclude_author=exclude)
    best = max((v for sid, v in sims.items() if sid.rsplit(":", 1)[0] in cards), default=0.0)
    return {"answer_p": max(c.score for c in pool), "example_sim": max(best, 0.0)}


def _judge_part(
    text: str,
    vector: np.ndarray,
    question: Question,
    state: AgentState,
    deps: AgentDeps,
    lexicon: CardLexicon,
    top_k: int,
) -> tuple[bool, list[ContextChunk]]:
    """Whether the cards answer this part on its own, and the cards it would be answered
    from."""
    mentions: list[Mention] = state.get("mentions", [])
    searched = deps.vocabulary.normalise(part_text(text, mentions, deps.vocabulary))
    own = deps.vocabulary.find(searched)
    if not any(m.entry.covered for m in deps.vocabulary.find(text)) and any(
        not m.entry.covered for m in mentions
    ):
        # a part that names nothing covered of its own ("quantas vezes por dia?") may be
        # about what the message names that the cards do not cover ("soro fisiológico")
        return False, []
    result = deps.retriever.search(searched, top_k * WIDEN, vector=vector)
    part_state: dict[str, Any] = {
        **state,
        "mentions": own,
        "query_vector": vector,
        "search_query": searched,
    }
    boost = boosts(part_state, lexicon, deps.bank, [])  # type: ignore[arg-type]
    lexical = lexical_coverage(lexicon, searched, result.candidates)
    candidates = rerank(result.candidates, boost, lexical, top_k)
    parents = [c for c in candidates if c.score >= CITE_FLOOR]
    pool = deps.sentences.scored_pool(question, parents) if deps.sentences and parents else []
    decision = answerability(
        judged_text(searched),
        asked_mentions(searched, own),
        candidates,
        lexicon,
        np.asarray(vector),
        deps.vectors.get,
        deps.bank,
        deps.model,
        original=searched,
        answer=_answer_signals(question, pool, deps),
    )
    return decision.outcome == "answer" and bool(parents), parents


def partial_answer(
    state: AgentState, deps: AgentDeps, focus: Focus, lexicon: CardLexicon
) -> PartialAnswer | None:
    """The covered and uncovered parts of a message the whole decision refused, or None
    when it does not ask several things, or when its parts are all covered or all not.
    With an answer, `focus` is set to answer the covered parts only, over the cards they
    and the whole message retrieved (PartialAnswer.parents)."""
    parts = state.get("clauses", [])
    if len(parts) < 2 or len(focus.clauses) != len(parts) or state.get("emergency"):
        return None
    top_k = state.get("top_k") or deps.settings.top_k
    covered: list[Question] = []
    uncovered: list[str] = []
    parents: dict[str, ContextChunk] = {}
    for (text, vector), question in zip(parts, focus.clauses, strict=True):
        ok, cards = _judge_part(text, vector, question, state, deps, lexicon, top_k)
        if ok:
            covered.append(question)
            for c in cards:
                parents.setdefault(c.id, c)
        else:
            uncovered.append(text)
    if not covered or not uncovered:
        return None
    # The answer is made from the covered parts, and may cite their cards too.
    merged = list({c.id: c for c in [*state.get("parents", []), *parents.values()]}.values())
    focus.clauses = covered
    if len(covered) == 1:
        focus.question = covered[0]
    if deps.sentences is not None and focus.question is not None:
        focus.pool = deps.sentences.scored_pool(focus.question, merged)
        focus.scored_with = deps.sentences.scorer
    quoted = "; ".join(f"“{t}”" for t in uncovered)
    return PartialAnswer(
        covered,
        uncovered,
        merged,
        f"Os cartões respondem a parte da pergunta; não respondem a {quoted}.",
    )
