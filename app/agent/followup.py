"""Follow-up questions: what a turn that names nothing of its own carries from the ones
before it, the names an answer stays on, and the question without its medicine names."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from app.agent.answerability import content_terms
from app.agent.ranking import about_cards
from app.agent.state import Turn
from app.agent.tunables import ASKED_MIN_TERMS, FOLLOW_UP_WORDS
from app.core.text import fold
from app.core.vocabulary import Entry, Mention, Vocabulary
from app.retrieval.coverage import CardLexiconCache
from app.safety.pii import clean_question

_CONTINUATION = re.compile(
    r"^(?:e|mas|entao|tipo|ai|e se|e pra|e para|e no|e na|e quanto|e quando|e a|e o|e com|"
    r"isso|ele|ela|esse|essa|o mesmo|a mesma|nele|nela|dele|dela)\b"
)


# A word that points back to what was said before ("tem algum jeito de diminuir esse
# mal-estar?" after a metformina turn).
_REFERS_BACK = re.compile(
    r"\b(?:esse|essa|esses|essas|isso|disso|nisso|desse|dessa|dele|dela|ele|ela|o mesmo|a mesma)\b"
)


def focus_names(mentions: list[Mention], carried: list[Entry]) -> list[Entry]:
    """The covered names an answer stays on: the medicines the question names, else its
    conditions and topics, else the names carried from the previous turn."""
    covered = list(dict.fromkeys(m.entry for m in mentions if m.entry.covered))
    medicines = [e for e in covered if e.kind == "medicine"]
    if medicines:
        return medicines
    # a follow-up that names a topic but no medicine ("e a cerveja de sábado, libera?" after
    # an amoxicilina turn) stays on the medicine it carries, with the topic
    return list(dict.fromkeys([*carried, *covered])) if carried else covered


def follow_up_topic(
    query: str,
    mentions: list[Mention],
    history: list[Turn],
    vocabulary: Vocabulary,
    about: Callable[[Entry], set[str]] | None = None,
) -> tuple[list[Entry], list[str]]:
    """For a follow-up that names nothing of its own ("e se eu tomar com café?"), the
    covered names and cited cards of the latest earlier turn that had them. `about` gives
    a name's cards: with it, a condition or topic the cited cards are not about is left
    behind (a medicine always carries)."""
    if not history or any(m.entry.kind == "medicine" and m.entry.covered for m in mentions):
        return [], []
    words = fold(query).split()
    if not (
        _CONTINUATION.match(fold(query))
        or len(words) <= FOLLOW_UP_WORDS
        or _REFERS_BACK.search(fold(query))
    ):
        return [], []
    # The names of the latest turn that named something, and the cards of the latest turn
    # that cited: a nameless turn in between ("quanto tempo demora pra passar?") keeps the
    # conversation on the medicine named before it.
    names: list[Entry] = []
    cards: list[str] | None = None
    earlier = list(reversed(history))
    named_at = len(earlier)
    for i, turn in enumerate(earlier):
        if cards is None and turn.get("citations"):
            cards = list(turn["citations"])
        names = [m.entry for m in vocabulary.find(turn["question"]) if m.entry.covered]
        if names:
            named_at = i
            break
    if names and not any(e.kind == "medicine" for e in names):
        # that turn named only a topic, itself a follow-up on a medicine (varfarina, then "e
        # chá de boldo?", then "e se ele esquecer a dose?"): the medicine carries first
        for turn in earlier[named_at + 1 :]:
            medicines = [
                m.entry
                for m in vocabulary.find(turn["question"])
                if m.entry.covered and m.entry.kind == "medicine"
            ]
            if medicines:
                names = [*medicines, *names]
                break
    if cards and about is not None:
        # a condition the answer was not about stays behind ("minha mãe, 70 anos, diabética,
        # suor frio e enjoo: pode ser infarto?" was answered from the emergency card; "levo
        # ela de carro pro hospital?" then carried "diabetes" and got the foot-care lines)
        names = [e for e in names if e.kind == "medicine" or about(e) & set(cards)]
    if mentions:
        # it names a topic of its own: only the medicines of the turn before carry over
        names = [e for e in names if e.kind == "medicine"]
        if not names:
            return [], []
    return list(dict.fromkeys(names)), cards or []


def conversation(
    query: str,
    mentions: list[Mention],
    history: list[Turn],
    vocabulary: Vocabulary,
    lexicons: CardLexiconCache,
) -> tuple[list[Entry], list[str], list[str]]:
    """What a later turn takes from the ones before it: the names it carries and the cards
    the previous turn cited, as a follow-up's (`context`) or, for a turn not read as one
    (it names a medicine of its own, or is long), as `earlier` cards; nothing in a first
    turn."""
    if not history:
        return [], [], []
    lexicon = lexicons.get()
    carried, context = follow_up_topic(
        query, mentions, history, vocabulary, lambda e: about_cards(lexicon, [e])
    )
    return carried, context, [] if context else previous_cards(history)


def previous_cards(history: list[Turn]) -> list[str]:
    """The citations of the latest earlier turn that has any (none in a first turn)."""
    for turn in reversed(history):
        if turn.get("citations"):
            return list(turn["citations"])
    return []


# "E o AAS dela?", "E dipirona, pode?": a follow-up that names a medicine and asks nothing of
# its own besides. Not "e com ...": "E com Advil?" after "Losartana 50: manhã ou noite?" asks
# about taking both, not about the Advil alone.
_ELLIPTICAL = re.compile(r"^(?:mas )?e\b(?! com\b)")


def elliptical(
    query: str, mentions: list[Mention], history: list[Turn], vocabulary: Vocabulary
) -> str | None:
    """A follow-up that only names a medicine asks the question before it about that one:
    "E o AAS dela?" after "Minha mãe vai operar ... e toma metformina. Tem que parar
    antes?" is that question with AAS in the place of the medicine it named last (read
    alone, it was 0.04 from the AAS card and refused; f16-110). The earlier question is
    itself read so first (then "e o da depressão?" after "e o do sono?" after "pode beber
    tomando antibiótico?"). None when this turn asks something of its own (a content word
    besides its names), or the question before named no medicine or several (in "pode
    tomar ibuprofeno quem toma losartana?", which one "e paracetamol?" stands for is not
    known)."""
    named = [m for m in mentions if m.entry.covered and m.entry.kind == "medicine"]
    if not history or not named or not _ELLIPTICAL.match(fold(query)):
        return None
    start, end = named[0].span[0], named[-1].span[1]
    if content_terms(f"{query[:start]} {query[end:]}"):
        return None  # it asks something of its own ("e o clonazepam, tem problema levar?")
    earlier = clean_question(str(history[-1]["question"]))
    earlier = elliptical(earlier, vocabulary.find(earlier), history[:-1], vocabulary) or earlier
    before = [
        m
        for m in vocabulary.find(earlier)
        if m.entry.covered and m.entry.kind == "medicine" and m.span[1] > m.span[0]
    ]
    if len({m.entry for m in before}) != 1 or before[0].entry in {m.entry for m in named}:
        return None  # none, or several: which one it stands for is not known
    for m in reversed(before):  # each time it is named ("toma metformina ... a metformina")
        earlier = f"{earlier[: m.span[0]]}{query[start:end]}{earlier[m.span[1] :]}"
    return earlier


def what_is_asked(query: str, mentions: list[Mention]) -> str | None:
    """The question without the medicines it names ("uso omeprazol há 5 anos, faz mal?" ->
    "uso há 5 anos, faz mal?"), or None when it names none or less than two words are left. Inside a
    card about omeprazol every sentence shares the name, and with it in the question the
    embedder picked "O omeprazol deve ser tomado em jejum" (0.50) over "O uso prolongado,
    por meses ou anos..." (0.27); without it, 0.06 against 0.35."""
    spans = [m.span for m in mentions if m.entry.covered and m.span[1] > m.span[0]]
    if not spans:
        return None
    asked = query
    for start, end in sorted(spans, reverse=True):
        asked = asked[:start] + " " + asked[end:]
    asked = " ".join(asked.split())
    # One word left ("bombinha espaçador criança" -> "criança") says too little to choose by.
    return asked if len(content_terms(asked)) >= ASKED_MIN_TERMS else None


def part_text(part: str, mentions: list[Mention], vocabulary: Vocabulary) -> str:
    """A part of the question as embedded: with the message's first covered name in front
    when the part names nothing covered itself."""
    first = next((m.entry for m in mentions if m.entry.covered), None)
    if first is None or any(m.entry.covered for m in vocabulary.find(part)):
        return part
    return f"{first.name}: {part}"


def example_vector(state: Any) -> np.ndarray:
    """The question as compared with the example questions of card sentences: accent-folded,
    as they were embedded; a follow-up as searched, with the topic it carries in front
    ("insulina: e depois de aberta?"), since alone it names nothing."""
    query = np.asarray(state["query_vector"])
    return query if state.get("carried") else np.asarray(state.get("folded_vector", query))
