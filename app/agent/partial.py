"""A question of several parts that the cards answer only in part ("aradois pode tomar com
comida? e ele dá tosse?"): the covered parts are answered and the others named, instead of
refusing the whole message or answering it as if the cards covered all of it (issue 24).

When the message asks two or more things (app.agent.parts.clauses), each part is judged on
its own, as the whole is: retrieved with its own vector, ranked, its sentences scored by the
sentence scorer, and put to the answerability model. What decides a part depends on the
whole message's decision:
- the whole was refused: a part is covered when the answerability model says so of it;
- the whole was answered: a part is named as not covered only when the part model
  (app/agent/part_model.json, trained by `python -m evaluation.part_model` on the tuning
  authors' labelled parts) says it is, from what its own judgement measured. A follow-on
  piece ("Tanto faz?", "se sim, anoto o quê?") is a part of the question before it, not a
  question the cards leave open, and the model learned that from the labels.
When some parts are covered and some are not, the answer is made from the covered parts
(their cards join those the answer may cite) and the others are named in the patient's
words. When every part, or none, is covered, the whole message's decision stands.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from app.agent.answerability import content_terms
from app.agent.answerability import decide as answerability
from app.agent.decision import asked_mentions, judged_text
from app.agent.deps import AgentDeps
from app.agent.followup import part_text
from app.agent.generators import Focus
from app.agent.logistic import load_logistic, logistic
from app.agent.ranking import about_cards, card_signals, named_entries, rerank
from app.agent.scorer import Question
from app.agent.state import AgentState
from app.agent.tunables import CITE_FLOOR, WIDEN
from app.core.vocabulary import Mention
from app.retrieval.coverage import CardLexicon
from app.retrieval.models import ContextChunk

PART_MODEL_PATH = Path(__file__).with_name("part_model.json")

# What the part model reads of one part's judgement (PartJudgement.features).
PART_FEATURES = (
    "p_covered",  # the answerability model's P(covered) for the part alone
    "answer_p",  # the best P(answers) of a sentence of the part's cards
    "example_sim",  # its best similarity to those sentences' example questions
    "aspect",  # it names an aspect the cards do not cover (kb/uncovered.yaml)
    "own_terms",  # its content words that no other part of the message has (at most 6)
    "names_covered",  # it names something the cards cover of its own
    "whole_p",  # the whole message's P(covered)
    "borrows_uncovered",  # it names nothing covered, and the message names what is not
    "terms",  # its content words (at most 6)
    # its similarity to the nearest out-of-scope and in-scope question of the decision's
    # question bank: out of author, the uncovered parts named at 2% of the covered named
    # went 0.344 -> 0.538 (493 clauses, 93 uncovered; every tuning author gained)
    "bank_out_1",
    "bank_in_1",
)


@dataclass
class PartJudgement:
    """One part as judged on its own: covered by the answerability model's decision, the
    cards it would be answered from, and what the part model reads."""

    text: str
    covered: bool
    parents: list[ContextChunk]
    features: dict[str, float]


@dataclass
class PartialAnswer:
    """Which parts the cards answer, the others in the patient's words, and the cards the
    covered parts may be answered from."""

    covered: list[Question]
    uncovered: list[str]
    parents: list[ContextChunk] = field(default_factory=list)
    reason: str = ""


@lru_cache(maxsize=2)
def load_part_model(path: Path = PART_MODEL_PATH) -> dict[str, Any]:
    """The part model, refused when it was trained on other features than PART_FEATURES."""
    return load_logistic(path, PART_FEATURES, "python -m evaluation.part_model")


def p_uncovered(features: dict[str, float], model: dict[str, Any]) -> float:
    """P(no card answers this part) under the part model's logistic regression."""
    return logistic(features, model)


def _answer_signals(pool: list[Any], sims: dict[str, float]) -> dict[str, float]:
    """As decision.answer_signals, for one part: the best P(answers) of a sentence of its
    cards, and the best similarity of the part to their sentences' example questions
    (`sims`, by sentence id)."""
    if not pool:
        return {"answer_p": 0.0, "example_sim": 0.0}
    cards = {c.card for c in pool}
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
) -> PartJudgement:
    """Whether the cards answer this part on its own, the cards it would be answered from,
    and what was measured on the way."""
    mentions: list[Mention] = state.get("mentions", [])
    searched = deps.vocabulary.normalise(part_text(text, mentions, deps.vocabulary))
    own = deps.vocabulary.find(searched)
    names_covered = any(m.entry.covered for m in deps.vocabulary.find(text))
    features = dict.fromkeys(PART_FEATURES, 0.0)
    features["names_covered"] = float(names_covered)
    features["terms"] = float(min(6, len(content_terms(text))))
    # a part that names nothing covered of its own ("quantas vezes por dia?") may be about
    # what the message names that the cards do not cover ("soro fisiológico")
    borrows = not names_covered and any(not m.entry.covered for m in mentions)
    features["borrows_uncovered"] = float(borrows)
    part_state: dict[str, Any] = {**state, "mentions": own, "query_vector": vector}
    include = about_cards(lexicon, named_entries(part_state))
    result = deps.retriever.search(searched, top_k * WIDEN, vector=vector, include=include)
    part_state["search_query"] = searched
    exclude = getattr(deps.sentences, "exclude_author", None)
    examples = deps.examples()
    sims = examples.similarities(question.folded, exclude_author=exclude)
    signals = card_signals(
        part_state, lexicon, deps.bank, deps.vocabulary, result.candidates, sims,
        example_cards=examples.cards(),
    )  # fmt: skip
    candidates = rerank(result.candidates, signals, top_k, deps.card_ranker)
    parents = [c for c in candidates if c.score >= CITE_FLOOR]
    pool = deps.sentences.scored_pool(question, parents) if deps.sentences and parents else []
    answer = _answer_signals(pool, sims)
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
        answer=answer,
    )
    features.update(
        p_covered=decision.probability,
        answer_p=answer["answer_p"],
        example_sim=answer["example_sim"],
        aspect=float(bool(decision.signals.get("uncovered_aspect"))),
    )
    # the part's nearest known questions (the decision's question bank), out of scope and in
    features["bank_out_1"] = float(decision.signals.get("bank_out_1", 0.0))
    features["bank_in_1"] = float(decision.signals.get("bank_in_1", 0.0))
    covered = decision.outcome == "answer" and bool(parents) and not borrows
    return PartJudgement(text, covered, parents, features)


def judge_parts(
    state: AgentState, deps: AgentDeps, focus: Focus, whole_p: float
) -> list[PartJudgement]:
    """Each part of a message that asks several things, judged on its own; [] for a
    message of one part or an emergency."""
    parts = state.get("clauses", [])
    if len(parts) < 2 or len(focus.clauses) != len(parts) or state.get("emergency"):
        return []
    top_k = state.get("top_k") or deps.settings.top_k
    lexicon: CardLexicon = state["lexicon"]
    judged = [
        _judge_part(text, vector, question, state, deps, lexicon, top_k)
        for (text, vector), question in zip(parts, focus.clauses, strict=True)
    ]
    terms = [set(content_terms(j.text)) for j in judged]
    for k, j in enumerate(judged):
        others = set().union(*(t for i, t in enumerate(terms) if i != k))
        j.features["own_terms"] = float(min(6, len(terms[k] - others)))
        j.features["whole_p"] = whole_p
    return judged


def partial_answer(
    state: AgentState,
    deps: AgentDeps,
    focus: Focus,
    judged: list[PartJudgement],
    whole_covered: bool,
) -> PartialAnswer | None:
    """The covered and uncovered parts of a message, or None when it does not ask several
    things, or when its parts are all covered or all not. With an answer, `focus` is set to
    answer the covered parts only, over the cards they and the whole message retrieved
    (PartialAnswer.parents)."""
    if not judged:
        return None
    if whole_covered:
        model = load_part_model()
        open_ = [p_uncovered(j.features, model) >= model["threshold"] for j in judged]
    else:
        open_ = [not j.covered for j in judged]
    if all(open_) or not any(open_):
        return None
    covered = [q for q, o in zip(focus.clauses, open_, strict=True) if not o]
    uncovered = [j.text for j, o in zip(judged, open_, strict=True) if o]
    parents: dict[str, ContextChunk] = {}
    for j, o in zip(judged, open_, strict=True):
        for c in j.parents if not o else []:
            parents.setdefault(c.id, c)
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
