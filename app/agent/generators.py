"""Answer generators. Each returns a Draft: text with [cite:card-X] markers, plus the
ids it claims to have used. Verification (app.agent.verify) comes after, for all."""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

import httpx
import numpy as np

from app.agent.compose import Composition, Part, compose
from app.agent.context import context_block
from app.agent.examples import ExampleBank
from app.agent.prompts import prompt, repair_request
from app.agent.scorer import Candidate, Question, SentenceScorer, features, load_scorer
from app.agent.sentence_labels import ANAPHORIC, numbered, sentence_labels
from app.agent.tunables import (
    BACKOFF_FIRST_S,
    BACKOFF_MAX_S,
    LOW_MOOD_BONUS,
    MAX_SENTENCES,
    REQUEST_MARGIN_S,
    URGENT_BONUS,
)
from app.agent.vectors import SentenceVectors
from app.core.config import Settings
from app.core.errors import DeadlineExceeded
from app.core.text import fold
from app.core.vocabulary import Entry, vocabulary
from app.retrieval.models import ContextChunk
from app.safety.advice import HARD, read, unsafe_reasons
from app.safety.injection import looks_like_injection

log = logging.getLogger(__name__)


@dataclass
class Draft:
    text: str
    citations: list[str]
    generator: str
    warnings: list[str] = field(default_factory=list)
    uncovered: list[str] = field(default_factory=list)  # parts of the question no card answers


@dataclass
class Focus:
    """What the answer must stay on: the covered names the question (or the topic carried
    from the previous turn) mentions, the cards about them, and what the patient needs."""

    names: list[Entry] = field(default_factory=list)
    about: set[str] = field(default_factory=set)
    need: str | None = None  # "stop" | "double" | "change" | "missed"
    about_of: dict[str, set[str]] = field(default_factory=dict)  # card -> names it is about
    cards_of: dict[str, set[str]] = field(default_factory=dict)  # name -> cards about it
    foreign: set[str] = field(default_factory=set)  # cards about a medicine not asked about
    card_medicines: dict[str, set[str]] = field(default_factory=dict)  # card -> its medicines
    urgent: bool = False  # an emergency: the card's lines on what to do come first
    asked: Any = None  # the question without the names it gives (AgentState.asked_vector)
    low_mood: bool = False  # tells of sadness or hopelessness: where to get help comes first
    question: Question | None = None  # the question as the sentence scorer reads it
    clauses: list[Question] = field(default_factory=list)  # its parts, when it asks several
    pool: list[Candidate] | None = None  # the cited cards' sentences, scored for `question`
    scored_with: Any = None  # the scorer that scored `pool`


# Low mood told, not asked about ("tô muito triste e sem vontade de nada faz semanas"): the
# cards' line on where to get help answers it, not how to take an antidepressant.
LOW_MOOD = re.compile(
    r"\b(?:(?:to|tou|estou|ando|me sinto|me sentindo|sinto|fico|ficando|anda|esta|ta) (?:muito |tao |bem |"
    r"super |meio )?(?:triste|deprimid[oa]|desanimad[oa]|pra baixo|sem esperanca|desesperad[oa]|vazi[oa]|"
    r"sozinh[oa]|angustiad[oa]|sem vontade)|sem vontade de (?:nada|fazer nada|viver|sair da cama)|"
    r"chorando (?:o tempo todo|todo dia|toda hora|sem parar)|nao (?:tenho|sinto) (?:mais )?(?:vontade|"
    r"animo|prazer) (?:de|pra|para|em) (?:nada|viver|fazer nada))\b"
)


_ASK = r"(?:posso|pode|podem|devo|deve|da pra|da para|quero|queria|vou|preciso|tenho que|tem que|seria bom|e bom|e melhor|ja posso)"
# "cortar" is about the medicine only when it says so: "adoro couve, vou ter que cortar?" is
# about the food.
_CUT_PILL = r"cortar(?= (?:o |a |os |as )?(?:remedio|comprimido|dose|medicamento|ao meio|no meio|pela metade))"
_CUT_STOP = (
    r"cortar(?= (?:o |a |os |as )?(?:remedio|comprimido|dose|medicamento)s?\b"
    r"(?! (?:ao meio|no meio|pela metade|em dois)))"
)
_NEEDS = {
    "stop": rf"\b{_ASK}\s+(?:\w+\s+){{0,2}}?(?:parar|suspender|largar|deixar de tomar|interromper|tirar|"
    rf"{_CUT_STOP}|abandonar|ficar sem)\b|\b(?:parei|larguei|suspendi|deixei de tomar|interrompi|parar de tomar|"
    r"parar o remedio|parar com o remedio|nao tomar mais|sem o remedio|paro|largo|suspendo|"
    r"interrompo|deixo de tomar|paramos|parando)\b",
    "double": r"\b(?:dobr\w*|tomar dois|tomar duas|dose dupla|em dobro|tomar (?:mais|outro|outra) "
    r"(?:comprimido|dose)|compens\w*|tomo de novo|tomar de novo|tomo outro|tomo outra)\b",
    "change": rf"\b{_ASK}\s+(?:\w+\s+){{0,2}}?(?:aumentar|diminuir|reduzir|trocar|mudar|{_CUT_PILL}|partir|"
    r"baixar|subir)\b|\b(?:aument|diminu|reduz|baix|sub)\w* (?:a|essa|minha) dose\b|"
    r"\btomar (?:mais|menos) (?:remedio|comprimido|dose)\b|\bmeio comprimido\b",
    "missed": r"\b(?:esqueci|esquecer|esqueceu|esquece|pulei|perdi a hora|nao tomei|"
    r"deixei de tomar)\b",
}


def need_of(question: str) -> str | None:
    folded = fold(question)
    for need, pattern in _NEEDS.items():
        if re.search(pattern, folded):
            return need
    return None


def mentions_name(sentence: str, names: list[Entry]) -> bool:
    folded = fold(sentence)
    return any(re.search(rf"(?<!\w){re.escape(a)}(?!\w)", folded) for e in names for a in e.aliases)


def names_other_medicine(sentence: str, names: list[Entry]) -> bool:
    """Whether the sentence is about a medicine the question did not name."""
    named = {e.name for e in names}
    return any(
        m.entry.kind == "medicine" and m.entry.name not in named
        for m in vocabulary().find(sentence)
        if m.exact
    )


# A line that already speaks to stopping, in the card's own words ("A retirada costuma ser
# gradual e orientada pelo médico", "Tome o antibiótico até o fim ... mesmo que se sinta
# melhor antes"): no other card's "não pare" is added to it.
_SPEAKS_TO_STOP = re.compile(
    r"\b(?:parar|pare|retirada|suspend\w*|suspens\w*|interromp\w*|ate o fim|reducao gradual)\b"
)
_SPEAKS_TO_STOP_HOW = re.compile(r"\b(?:medic\w*|orient\w*|gradual\w*|ate o fim|mesmo que)\b")


def speaks_to_stop(sentence: str) -> bool:
    folded = fold(sentence)
    return bool(_SPEAKS_TO_STOP.search(folded) and _SPEAKS_TO_STOP_HOW.search(folded))


def names_a_medicine_of(c: Any, focus: Focus) -> bool:
    """Whether the sentence names another medicine its own card is about."""
    asked = {e.name for e in focus.names}
    others = focus.card_medicines.get(c.card, set()) - asked
    return any(m.exact and m.entry.name in others for m in vocabulary().find(c.text))


def portable_guidance(sentence: str) -> bool:
    """Guidance that reads right under any question: it names no medicine or condition, sets
    no condition of its own ("Se você engravidar ...") and points back to nothing ("esses
    sintomas"). Only such a line may come from a card about something else."""
    folded = fold(sentence)
    if re.match(r"se\b", folded) or re.search(
        r"\b(?:ess[ea]s?|iss[oa]|dess[ea]s?|nesse|nessa)\b", folded
    ):
        return False
    return not any(m.exact for m in vocabulary().find(sentence))


def is_guidance(sentence: str, need: str | None) -> bool:
    """A sentence that tells the patient not to change the treatment on their own."""
    reading = read(sentence)
    kinds = {"stop": ("stop",), "double": ("double",), "change": HARD, "missed": ("double", "skip")}
    wanted = kinds.get(need or "", HARD)
    return any(a.against and a.action in wanted for a in reading.actions) and not unsafe_reasons(
        reading, quoted=True
    )


def _dependent(sid: str, sentence: str, labels: Any, after: str = "", card: str = "") -> bool:
    """Whether a sentence cannot be read alone ("Se notar esses sintomas, não reduza...")
    and the text it follows (`after`) does not hold what it needs."""
    label = labels.get(sid, sentence)
    if label is None:
        return bool(ANAPHORIC.match(sentence))
    if label.needs is None:
        return False
    needed = next(
        (s for n, _, s in numbered(card) if f"{sid.rsplit(':', 1)[0]}:{n:02d}" == label.needs), None
    )
    return not (needed and needed in after)


def guidance_sentence(
    parents: list[ContextChunk],
    focus: Focus,
    vectors: SentenceVectors,
    query_vector: np.ndarray,
    after: str = "",
) -> tuple[str, str] | None:
    """(sentence, card id) of the cards' "do not do it on your own" guidance for a
    stop/double/change question: a card about the named medicine first, then the
    best-ranked card (the one that answers), then the closest sentence. By closeness alone,
    "esqueci uma dose de amoxicilina, tomo duas?" got warfarin's "não dobre a seguinte;
    informe no dia do exame" instead of the missed-dose card's "Nunca tome dose dobrada"."""
    labels = sentence_labels()
    candidates = [
        (rank, p.id, s, _dependent(f"{p.id}:{n:02d}", s, labels, after, p.text))
        for rank, p in enumerate(parents)
        for n, _, s in numbered(p.text)
        if is_guidance(s, focus.need)
        and not looks_like_injection(s)
        and p.id not in focus.foreign
        and (
            rank == 0
            or p.id in focus.about
            or mentions_name(s, focus.names)
            or portable_guidance(s)
        )
    ]
    # a line that reads alone first; the guidance matters more than the reading, so a line
    # that needs an earlier one still comes when no other says it
    found = [c[:3] for c in candidates if not c[3]] or [c[:3] for c in candidates]
    if not found:
        return None
    sims = vectors.get([s for *_, s in found]) @ np.asarray(query_vector)
    best = sorted(
        zip(found, sims, strict=True),
        key=lambda x: (
            x[0][1] not in focus.about and not mentions_name(x[0][2], focus.names),
            x[0][0],
            -x[1],
        ),
    )[0][0]
    return best[2], best[1]


class Generator(Protocol):
    name: str

    def generate(
        self, question: str, parents: list[ContextChunk], query_vector: np.ndarray, focus: Focus
    ) -> Draft: ...


_GET_HELP = re.compile(
    r"\b(?:samu|192|188|cvv|pronto-socorro|pronto socorro|emergencia|procure (?:ajuda|atendimento)|"
    r"ligue|atendimento imediato|imediatamente)\b"
)


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
            every = numbered(parent.text)
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
                        n_card=len(every),
                    )
                )
        return out

    def _eligible(self, c: Candidate, focus: Focus) -> bool:
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
        if focus.urgent or focus.low_mood:
            help_lines = np.array([bool(_GET_HELP.search(fold(c.text))) for c in pool])
            scores = scores + (LOW_MOOD_BONUS if focus.low_mood else URGENT_BONUS) * help_lines
        for c, p in zip(pool, scores, strict=True):
            c.score = float(p)
        eligible = [self._eligible(c, focus) for c in pool]
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


class LLMOutputError(ValueError):
    """The model's reply is not the JSON object we asked for."""


def parse_structured(content: str) -> tuple[str, list[str]]:
    try:
        data = json.loads(content)
    except json.JSONDecodeError as exc:
        raise LLMOutputError(f"not JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("answer"), str):
        raise LLMOutputError("JSON without a string 'answer'")
    citations = data.get("citations", [])
    if not isinstance(citations, list) or not all(isinstance(c, str) for c in citations):
        raise LLMOutputError("'citations' is not a list of strings")
    return data["answer"], citations


class OpenAICompatibleGenerator:
    """Any OpenAI-compatible chat-completions endpoint (vLLM, Ollama, llama.cpp server,
    OpenAI) in JSON mode. Bounded retries and one repair attempt for malformed JSON, all
    within LLM_DEADLINE_S; then a flagged fallback to the extractive answer."""

    name = "openai"

    def __init__(self, settings: Settings, fallback: ExtractiveGenerator):
        self.settings = settings
        self.fallback = fallback
        headers = {"content-type": "application/json"}
        key = settings.llm_api_key.get_secret_value()
        if key:
            headers["authorization"] = f"Bearer {key}"
        # The whole model path must also fit in the request's own deadline, with room left
        # for retrieval, verification and the extractive fallback.
        self.deadline_s = max(
            1.0, min(settings.llm_deadline_s, settings.request_deadline_s - REQUEST_MARGIN_S)
        )
        if self.deadline_s < settings.llm_deadline_s:
            log.warning(
                "LLM_DEADLINE_S=%g is capped to %g s by REQUEST_DEADLINE_S=%g; raise "
                "REQUEST_DEADLINE_S to give the model more time",
                settings.llm_deadline_s,
                self.deadline_s,
                settings.request_deadline_s,
            )
        self.client = httpx.Client(
            base_url=settings.llm_base_url.rstrip("/"),
            timeout=httpx.Timeout(settings.llm_timeout_s),
            headers=headers,
        )

    def _remaining(self, deadline: float) -> float:
        left = deadline - time.monotonic()
        if left <= 0:
            raise DeadlineExceeded(self.deadline_s, f"no answer within {self.deadline_s:g} s")
        return left

    def _complete(self, messages: list[dict[str, str]], deadline: float) -> str:
        body: dict[str, Any] = {
            "model": self.settings.llm_model,
            "messages": messages,
            "temperature": self.settings.llm_temperature,
            "response_format": {"type": "json_object"},
        }
        attempts = self.settings.llm_retries + 1
        for attempt in range(1, attempts + 1):
            timeout = min(self.settings.llm_timeout_s, self._remaining(deadline))
            try:
                response = self.client.post("/chat/completions", json=body, timeout=timeout)
                if response.status_code == 429 or response.status_code >= 500:
                    raise httpx.HTTPStatusError(
                        f"status {response.status_code}",
                        request=response.request,
                        response=response,
                    )
                response.raise_for_status()
                return str(response.json()["choices"][0]["message"]["content"])
            except (httpx.TransportError, httpx.HTTPStatusError) as exc:
                retriable = isinstance(exc, httpx.TransportError) or (
                    exc.response.status_code == 429 or exc.response.status_code >= 500
                )
                if not retriable or attempt == attempts:
                    raise
                backoff = min(BACKOFF_FIRST_S * 2 ** (attempt - 1), BACKOFF_MAX_S)
                if backoff >= self._remaining(deadline):
                    raise DeadlineExceeded(
                        self.deadline_s, "no time left for another attempt"
                    ) from exc
                time.sleep(backoff)
        raise AssertionError("unreachable")

    def generate(
        self, question: str, parents: list[ContextChunk], query_vector: np.ndarray, focus: Focus
    ) -> Draft:
        deadline = time.monotonic() + self.deadline_s
        context = context_block(parents, self.settings.prompt_chunk_max_chars)
        messages = prompt(context, question)
        try:
            content = self._complete(messages, deadline)
            try:
                text, cited = parse_structured(content)
            except LLMOutputError as first:
                log.warning("LLM reply was malformed (%s); asking once for a repair", first)
                messages += repair_request(content)
                text, cited = parse_structured(self._complete(messages, deadline))
            return Draft(text, cited, self.name)
        except (
            LLMOutputError,
            httpx.HTTPError,
            KeyError,
            IndexError,
            ValueError,
            TimeoutError,
        ) as exc:
            log.warning(
                "LLM generation failed (%s); using the extractive answer", type(exc).__name__
            )
            draft = self.fallback.generate(question, parents, query_vector, focus)
            draft.generator = "extractive-fallback"
            reason = (
                f"did not answer within {self.deadline_s:g} s"
                if isinstance(exc, TimeoutError)
                else f"could not give a valid answer ({type(exc).__name__})"
            )
            draft.warnings.append(
                f"the language model {reason}; showing the extractive answer instead"
            )
            return draft


def make_generator(
    settings: Settings,
    vectors: SentenceVectors,
    examples: Callable[[], ExampleBank] | None = None,
) -> Generator:
    extractive = ExtractiveGenerator(vectors, settings, examples=examples)
    if settings.generator == "openai":
        return OpenAICompatibleGenerator(settings, extractive)
    return extractive
