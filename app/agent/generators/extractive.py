"""The extractive generator: offline and deterministic, the answer is made of card
sentences, each followed by its card's citation."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from app.agent.compose import Composition, Part, compose
from app.agent.examples import ExampleBank
from app.agent.generators.draft import Draft
from app.agent.generators.focus import (
    Focus,
    mentions_name,
    missed_dose,
    names_a_medicine_of,
    names_other_medicine,
)
from app.agent.generators.guidance import is_guidance, portable_guidance, speaks_to_stop
from app.agent.scorer import Candidate, Question, SentenceScorer, features, load_scorer
from app.agent.sentence_labels import numbered, sentence_labels
from app.agent.tunables import LOW_MOOD_BONUS, MAX_SENTENCES, MISSED_BONUS, URGENT_BONUS
from app.agent.vectors import SentenceVectors
from app.core.config import Settings
from app.core.text import fold
from app.retrieval.models import ContextChunk
from app.safety.advice import read, unsafe_reasons
from app.safety.injection import looks_like_injection

_GET_HELP = re.compile(
    r"\b(?:samu|192|188|cvv|pronto-socorro|pronto socorro|emergencia|procure (?:ajuda|atendimento)|"
    r"ligue|atendimento imediato|imediatamente)\b"
)

_MOOD_HELP = re.compile(r"\b(?:cvv|188|saude mental|caps)\b")


def _missed_lead(
    q: Question, pool: list[Candidate], eligible: list[bool], focus: Focus
) -> np.ndarray:
    """A dose missed ("e se ele esquecer a do almoço?"): the cards' lines on a missed dose
    (labelled `dose_esquecida`, kb/sentences.yaml) lead, when one may speak. In a follow-up
    the carried medicine's card ranked first, and its lines on meals opened the answer while
    "Nunca tome dose dobrada para compensar" came last."""
    out = np.zeros(len(pool))
    # need_of already read "missed" with missed_dose; "tomo dois pra compensar?" is "double"
    if not (focus.need == "missed" or (focus.need == "double" and missed_dose(q.text))):
        return out
    asked = {e.name for e in focus.names}
    marked = np.array(
        [
            c.label is not None
            and "dose_esquecida" in c.label.intents
            # a medicine's own rule only for that medicine: not warfarin's "informe no dia
            # do exame" for a weekly osteoporosis pill
            and (not focus.card_medicines.get(c.card) or bool(focus.card_medicines[c.card] & asked))
            for c in pool
        ]
    )
    if not any(m and ok for m, ok in zip(marked, eligible, strict=True)):
        return out
    return MISSED_BONUS * marked


def _with_exceptions(pool: list[Candidate], scores: np.ndarray, lifted: np.ndarray) -> np.ndarray:
    """A lifted line that qualifies another lifted one ("Se já estiver perto do horário da
    próxima, pule a dose esquecida" needs "tomá-la assim que lembrar") scores just below it,
    so the rule is not quoted without its exception."""
    if not lifted.any():
        return scores
    out = scores.copy()
    at = {c.sid: i for i, c in enumerate(pool)}
    for i, c in enumerate(pool):
        j = at.get(c.needs or "")
        if lifted[i] and j is not None and lifted[j]:
            out[i] = max(out[i], scores[j] - 0.01)
    return out


@lru_cache(maxsize=1 << 12)
def _quotable(text: str) -> tuple[tuple[int, int, str], ...]:
    """(number, paragraph, sentence) of each sentence of a card that may be quoted: planted
    instructions and unsafe advice never are. Cached by the card's text: a card is the same
    text on every request of a build, and a changed card is a new key."""
    return tuple(
        (n, para, sentence)
        for n, para, sentence in numbered(text)
        if not looks_like_injection(sentence) and not unsafe_reasons(read(sentence), quoted=True)
    )


@lru_cache(maxsize=1 << 12)
def _sentence_count(text: str) -> int:
    return len(numbered(text))


class ExtractiveGenerator:
    """Offline and deterministic: the answer is made of card sentences, each followed by its
    card's citation. It never writes anything else.

    Which sentences: the learned scorer (app.agent.scorer) gives each quotable sentence of
    the retrieved cards P(it answers the question), and app.agent.compose makes the answer
    (the best one first, each part of the question answered, at most three sentences, a
    sentence only with what it needs before it). Focus rules decide which cards may speak:
    a card about a medicine the question (or the conversation) is not about speaks only
    through a sentence that names the medicine asked about, and a sentence naming another
    medicine is quoted only from a card about the one asked about."""

    name = "extractive"

    def __init__(
        self,
        vectors: SentenceVectors,
        settings: Settings,
        scorer: SentenceScorer | None = None,
        examples: Callable[[], ExampleBank] | None = None,
    ):
        self.vectors = vectors
        self.max_sentences = min(settings.extractive_max_sentences, MAX_SENTENCES)
        self.scorer = scorer or load_scorer()
        self.examples = examples or ExampleBank.empty
        self.labels = sentence_labels()
        # set by the training (evaluation.sentence_scorer): the author whose example
        # questions are left out, and a list that keeps what each call scored
        self.exclude_author: str | None = None
        self.record: list[tuple[Question, list[Candidate], Focus]] | None = None

    def _pool(self, parents: list[ContextChunk]) -> list[Candidate]:
        out = []
        for rank, parent in enumerate(parents):
            every = _sentence_count(parent.text)
            for n, para, sentence in _quotable(parent.text):
                sid = f"{parent.id}:{n:02d}"
                out.append(
                    Candidate(
                        rank,
                        n,
                        para,
                        parent.id,
                        sentence,
                        label=self.labels.get(sid, sentence),
                        n_card=every,
                    )
                )
        return out

    def _eligible(self, c: Candidate, focus: Focus) -> bool:
        if focus.crisis and not _GET_HELP.search(fold(c.text)):
            # safe messaging: under the CVV message, the support card speaks only through
            # its lines on where to get help; before, "tô cansada de tudo, queria sumir e não
            # acordar mais" got the antidepressant's side effects ("alterações no sono")
            return False
        names = mentions_name(c.text, focus.names) if focus.names else False
        if c.card in focus.foreign and not names:
            return False  # another medicine's card, not speaking of this one
        if focus.names and names_other_medicine(c.text, focus.names):
            # "metformina e álcool?" answered from the alcohol card: not its paracetamol line;
            # and from a card about two medicines ("Paracetamol e dipirona"), a dipirona
            # question gets none of the lines about paracetamol alone
            if c.card not in focus.about or names_a_medicine_of(c, focus):
                return names
        return True

    def scored_pool(self, q: Question, parents: list[ContextChunk]) -> list[Candidate]:
        """The quotable sentences of `parents`, each with its P(answers) for `q`."""
        pool = self._pool(parents)
        for c, p in zip(pool, self.score(q, pool), strict=True):
            c.score = float(p)
        return pool

    def score(self, q: Question, pool: list[Candidate]) -> np.ndarray:
        x = features(q, pool, self.vectors.get, self.examples(), self.exclude_author)
        return self.scorer.predict(x)

    def generate(
        self, question: str, parents: list[ContextChunk], query_vector: np.ndarray, focus: Focus
    ) -> Draft:
        q = focus.question or Question(question, query_vector, query_vector, focus.asked)
        pool = focus.pool if focus.pool is not None else self._pool(parents)
        if not pool:
            return Draft("", [], self.name)
        if self.record is not None:
            self.record.append((q, pool, focus))
        composition = self.compose(q, pool, focus)
        chosen = composition.chosen
        text = " ".join(f"{c.text} [cite:{c.card}]" for c in chosen)
        cited = list(dict.fromkeys(c.card for c in chosen))
        return Draft(text, cited, self.name, uncovered=composition.uncovered)

    def compose(self, q: Question, pool: list[Candidate], focus: Focus) -> Composition:
        """Score the pool for the question (and each of its parts) and make the answer."""
        eligible, parts = self.prepare(q, pool, focus)
        return self.finish(pool, eligible, parts, focus)

    def prepare(
        self, q: Question, pool: list[Candidate], focus: Focus
    ) -> tuple[list[bool], list[Part]]:
        """Each candidate's score (P(answers), set on it), which may speak, and the parts."""
        scores = (
            np.array([c.score for c in pool])
            if pool is focus.pool and q is focus.question and focus.scored_with is self.scorer
            else self.score(q, pool)
        )
        if focus.urgent:
            help_lines = np.array([bool(_GET_HELP.search(fold(c.text))) for c in pool])
            scores = scores + URGENT_BONUS * help_lines
        if focus.low_mood:
            # where to find help for the mood (CVV), not any line that names a service: "tô
            # desesperada, paro a losartana?" opened with SAMU for very high pressure
            mood_help = np.array([bool(_MOOD_HELP.search(fold(c.text))) for c in pool])
            scores = scores + LOW_MOOD_BONUS * mood_help
        eligible = [self._eligible(c, focus) for c in pool]
        lifted = _missed_lead(q, pool, eligible, focus)
        scores = _with_exceptions(pool, scores + lifted, lifted)
        for c, p in zip(pool, scores, strict=True):
            c.score = float(p)
        parts = [Part(cq.text, self.score(cq, pool)) for cq in focus.clauses]
        if len(parts) < 2:
            parts = self._name_parts(focus, scores)
        return eligible, parts

    def finish(
        self, pool: list[Candidate], eligible: list[bool], parts: list[Part], focus: Focus
    ) -> Composition:
        if not any(eligible):
            return Composition([])
        composition = compose(pool, eligible, parts, self.max_sentences)
        if focus.need in ("stop", "double", "change", "missed"):
            composition.chosen = self._with_guidance(composition.chosen, pool, eligible, focus)
        return composition

    @staticmethod
    def _name_parts(focus: Focus, scores: np.ndarray) -> list[Part]:
        """One part per name of the question whose cards differ from the other names'
        ("tomo AAS e sinvastatina, qual horário de cada um?")."""
        cards = {name: cs for name, cs in focus.cards_of.items() if cs}
        if len(cards) < 2 or len({frozenset(v) for v in cards.values()}) < 2:
            return []
        return [Part(name, scores, cards=cs, clause=False) for name, cs in cards.items()]

    def _with_guidance(
        self, chosen: list[Candidate], pool: list[Candidate], eligible: list[bool], focus: Focus
    ) -> list[Candidate]:
        """Make sure a stop/double/change question gets the cards' "do not do it on your own"
        guidance, preferring a card about the named medicine, then the card that answers,
        then the best-scored line (as guidance_sentence)."""
        if any(is_guidance(c.text, focus.need) for c in chosen):
            return chosen
        if focus.need == "stop" and any(speaks_to_stop(c.text) for c in chosen):
            return chosen
        answering = chosen[0].card if chosen else None
        guidance = [
            c
            for c, ok in zip(pool, eligible, strict=True)
            if is_guidance(c.text, focus.need)
            and c.card not in focus.foreign
            and (not c.needs or any(x.sid == c.needs for x in chosen))
            and (
                c.card in focus.about
                or mentions_name(c.text, focus.names)
                or c.card == answering
                or (ok and portable_guidance(c.text))
            )
        ]
        if not guidance:
            return chosen
        guidance.sort(
            key=lambda c: (
                c.card not in focus.about and not mentions_name(c.text, focus.names),
                c.card != answering,
                -c.score,
            )
        )
        keep = chosen[: self.max_sentences - 1]
        return [*keep, guidance[0]]
