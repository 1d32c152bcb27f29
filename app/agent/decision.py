"""What the decide node weighs besides the answerability model: the names the decision
judges, what the sentence scorer says of the cards the answer may cite."""

from __future__ import annotations

import re

from app.agent.deps import AgentDeps
from app.agent.generators import Focus
from app.core.vocabulary import Mention

_SENTENCE = re.compile(r"[^.!?]*[.!?]+|[^.!?]+$")


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

    def asked(m: Mention) -> bool:
        start, end = m.span
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
