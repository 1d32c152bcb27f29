"""The cards' "do not do it on your own" guidance, which a question about stopping,
doubling or changing a treatment (or a missed dose) always gets, whoever wrote the answer:
which sentences are guidance, which may come from a card about something else, and which
one to add."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from app.agent.generators.focus import Focus, mentions_name
from app.agent.sentence_labels import ANAPHORIC, numbered, sentence_labels
from app.agent.text import sentences
from app.agent.vectors import SentenceVectors
from app.core.text import fold
from app.core.vocabulary import vocabulary
from app.retrieval.models import ContextChunk
from app.safety.advice import HARD, read, unsafe_reasons
from app.safety.injection import looks_like_injection

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


def dependent(sid: str, sentence: str, labels: Any, after: str = "", card: str = "") -> bool:
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
        (rank, p.id, s, dependent(f"{p.id}:{n:02d}", s, labels, after, p.text))
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


def add_guidance(
    answer: str,
    citations: list[str],
    parents: list[ContextChunk],
    focus: Focus | None,
    vectors: SentenceVectors,
    query_vector: np.ndarray,
    generator: str | None,
) -> tuple[str, list[str]]:
    """The verified answer (and its citations) with the cards' guidance for a
    stop/double/change question, whoever wrote it; when nothing verified is left, the
    guidance alone rather than a refusal (the citations stay empty when there is none)."""
    if (
        focus
        and focus.need
        and citations
        and not any(is_guidance(s, focus.need) for s in sentences(answer))
        # the extractive answer already quotes its card's own words on stopping; a model's
        # answer still gets the cards' explicit "não pare por conta própria"
        and not (
            focus.need == "stop"
            and generator == "extractive"
            and any(speaks_to_stop(s) for s in sentences(answer))
        )
    ):
        found = guidance_sentence(parents, focus, vectors, query_vector, answer)
        if found:
            # after the answer: the card that answers keeps the first citation
            answer = f"{answer} {found[0]} [cite:{found[1]}]"
            citations = list(dict.fromkeys([*citations, found[1]]))
    if not citations and focus and focus.need:
        found = guidance_sentence(parents, focus, vectors, query_vector)
        if found:
            answer, citations = f"{found[0]} [cite:{found[1]}]", [found[1]]
    return answer, citations
