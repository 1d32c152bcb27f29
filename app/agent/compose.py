"""How the chosen sentences make an answer (issue 24).

- The best answering sentence opens the answer; at most MAX_SENTENCES are quoted.
- A sentence that cannot be read without an earlier one (kb/sentences.yaml `needs`) is
  quoted right after it, or not at all.
- A question of several parts (two clauses, or two things named whose cards differ) gets
  the best sentence of each part, from that part's cards; a clause that no sentence answers
  well enough is named in the answer instead ("Os cartões não falam de ...").
- Other sentences are added only from the cards that already answer, when the scorer is
  confident enough about them.

The thresholds (MAX_SENTENCES, EXTRA_MIN, EXTRA_RATIO, PART_MIN) live in app.agent.tunables,
chosen on the tuning authors (python -m evaluation.sentence_scorer prints the sweep, setting
this module's copies).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from app.agent.scorer import Candidate

# Re-exported on purpose: evaluation.sentence_scorer sweeps them by setting them here.
from app.agent.tunables import EXTRA_MIN as EXTRA_MIN
from app.agent.tunables import EXTRA_RATIO as EXTRA_RATIO
from app.agent.tunables import MAX_SENTENCES
from app.agent.tunables import PART_MIN as PART_MIN


@dataclass
class Part:
    """One thing asked: a clause of the question, or one of the names it gives."""

    text: str
    scores: np.ndarray  # P(answers) of each candidate for this part
    cards: set[str] | None = None  # only these cards may answer it
    clause: bool = True  # a clause (named when no card answers it), else a name


@dataclass
class Composition:
    chosen: list[Candidate]
    uncovered: list[str] = field(default_factory=list)  # clauses no sentence answers
    lead: int = 1  # how many of the first sentences are the lead and what it needs


def _group(
    c: Candidate, by_sid: dict[str, Candidate], room: int = MAX_SENTENCES
) -> list[Candidate] | None:
    """The sentence with what it needs before it; None when that cannot be quoted."""
    needs = c.needs
    if not needs:
        return [c]
    first = by_sid.get(needs)
    if first is None:
        return None
    between = [
        x for x in by_sid.values() if x.card == c.card and first.n < x.n < c.n and x.para == c.para
    ]
    # a chain ("Isso ... Nesses casos ..."): the sentences between come too, in order, when
    # there is room; else the one it needs, then it
    chain = [first, *sorted(between, key=lambda x: x.n), c]
    return chain if len(chain) <= room else [first, c]


def compose(
    pool: list[Candidate],
    eligible: list[bool],
    parts: list[Part],
    max_sentences: int = MAX_SENTENCES,
) -> Composition:
    """`pool[i].score` is P(answers) for the whole question; `parts`, when there are two or
    more, each score the candidates for one part."""
    # only what may be quoted: a line whose antecedent may not be quoted is not quoted either
    by_sid = {c.sid: c for c, ok in zip(pool, eligible, strict=True) if ok}
    order = sorted(
        (i for i, ok in enumerate(eligible) if ok), key=lambda i: (-pool[i].score, pool[i].rank)
    )
    answer = _Answer(max_sentences)
    uncovered: list[str] = []
    if len(parts) >= 2:
        uncovered = _answer_parts(answer, pool, eligible, parts, by_sid)
    if not answer.chosen:
        for i in order:  # the lead
            group = _group(pool[i], by_sid, max_sentences)
            if group and answer.take(group):
                answer.answering.add(pool[i].card)
                break
    if not answer.chosen:
        return Composition([])
    _add_extras(answer, pool, order, by_sid)
    return Composition(reading_order(answer.groups), uncovered, len(answer.groups[0]))


@dataclass
class _Answer:
    """The answer as it is made: the sentences chosen, by group (a sentence with what it
    needs before it), and the cards that answer."""

    max_sentences: int
    chosen: list[Candidate] = field(default_factory=list)
    groups: list[list[Candidate]] = field(default_factory=list)
    answering: set[str] = field(default_factory=set)

    def take(self, group: list[Candidate]) -> bool:
        new = [c for c in group if c not in self.chosen]
        if not new or len(self.chosen) + len(new) > self.max_sentences:
            return False
        self.chosen.extend(new)
        self.groups.append(new)
        return True


def _answer_parts(
    answer: _Answer,
    pool: list[Candidate],
    eligible: list[bool],
    parts: list[Part],
    by_sid: dict[str, Candidate],
) -> list[str]:
    """Each part in turn gets its best sentence, leaving a sentence of room for each part
    still to come; the first part's opens the answer. Returns the clauses no sentence
    answers well enough."""
    chosen, max_sentences = answer.chosen, answer.max_sentences
    uncovered: list[str] = []
    for k, part in enumerate(parts):
        ranked = sorted(
            (
                i
                for i, ok in enumerate(eligible)
                if ok and (part.cards is None or pool[i].card in part.cards)
            ),
            key=lambda i: (-float(part.scores[i]), pool[i].rank),
        )
        if not ranked or float(part.scores[ranked[0]]) < PART_MIN:
            if part.clause:
                uncovered.append(part.text)
            continue
        if any(c is pool[ranked[0]] for c in chosen):
            continue  # an earlier part's sentence already answers it
        room = max_sentences - len(chosen) - (len(parts) - k - 1)
        for i in ranked:
            if float(part.scores[i]) < PART_MIN:
                break
            group = _group(pool[i], by_sid, room)
            if group and len(group) <= room and answer.take(group):
                answer.answering.add(pool[i].card)
                break
    return uncovered


def _add_extras(
    answer: _Answer, pool: list[Candidate], order: list[int], by_sid: dict[str, Candidate]
) -> None:
    """Other sentences of the cards that already answer, while the scorer is confident
    enough about them (EXTRA_MIN, EXTRA_RATIO of the lead's) and there is room."""
    chosen, max_sentences = answer.chosen, answer.max_sentences
    lead_score = answer.groups[0][-1].score
    for i in order:
        c = pool[i]
        if c in chosen or c.card not in answer.answering:
            continue
        if c.score < EXTRA_MIN or c.score < EXTRA_RATIO * lead_score:
            break
        group = _group(c, by_sid, max_sentences - len(chosen))
        if group:
            answer.take(group)
        if len(chosen) >= max_sentences:
            break


def reading_order(groups: list[list[Candidate]]) -> list[Candidate]:
    """The lead's group first, then each part's; extra sentences of a card right after the
    group of their card, in the card's order."""
    if not groups:
        return []
    head, rest = groups[0], groups[1:]
    out = list(head)
    for group in rest:
        same = [i for i, c in enumerate(out) if c.card == group[0].card]
        if same and all(c.n > out[same[-1]].n for c in group):
            at = same[-1] + 1
            out[at:at] = group
        else:
            out.extend(group)
    return out
