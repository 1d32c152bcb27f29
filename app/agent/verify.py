"""Verification of a draft, for every generator: the citation contract, then meaning.

Each sentence must carry a valid citation and then pass, in order:
1. no instructions addressed to the assistant (planted in a question or a card);
2. no advice to change the treatment on one's own, read clause by clause with negation and
   framing parsed (app.safety.advice), even when the sentence is quoted word for word from
   a card: a mistaken or poisoned card must not pass because its text is verbatim;
3. for a sentence that is not a verbatim quote:
   - a softer piece of advice (skip a forgotten dose, start a medicine) only when a
     sentence of the cited card advises the same;
   - support: close (embedding similarity) to a sentence of a card it cites;
   - no contradiction of that sentence: the same verb negated in one and not in the other,
     or a permission ("sem problema", "pode") where the card warns ("evite", "não");
   - every number it states appears in that sentence, followed by the same unit.
Sentences that fail are removed and reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from app.agent.citations import Verified, verify
from app.agent.text import CITE_MARKER, sentences, strip_markers
from app.agent.vectors import SentenceVectors
from app.core.text import fold, tokenize
from app.retrieval.models import ContextChunk
from app.safety.advice import SOFT, advised, read, unsafe_reasons
from app.safety.injection import looks_like_injection

_NUMBER = re.compile(r"(\d+(?:[.,]\d+)?)\s*(%|°c|ºc|[a-zA-Zçãõéíóú]+)?")
_NEGATION = re.compile(r"\b(?:nao|nunca|jamais|nem|sem|evite|evitar|proibido)\b")
_WARNS = re.compile(r"\b(?:nao|nunca|jamais|evite|evitar|cuidado|risco|perigo|atencao)\b")
_PERMITS = re.compile(
    r"\b(?:sem problema|sem problemas|nao tem problema|pode ficar tranquil\w*|tranquil\w*|"
    r"nao faz mal|sem risco|liberad\w*|a vontade|e seguro|nao precisa se preocupar)\b"
)


def _split_answer(answer: str) -> list[str]:
    """Answer sentences, each keeping the markers that follow it."""
    pieces = re.split(r"(?<=[.!?…])\s+(?=[\"'“(«]?[A-ZÀ-Ý0-9])|(?<=\])\s+(?!\[cite:)", answer)
    return [p.strip() for p in pieces if p.strip()]


def _numbers(text: str) -> list[tuple[str, str]]:
    return [(n.replace(",", "."), (u or "").lower()) for n, u in _NUMBER.findall(fold(text))]


def _number_problem(claim: str, support: str) -> str | None:
    have = _numbers(support)
    values = {n for n, _ in have}
    for number, unit in _numbers(claim):
        if number not in values:
            return f"number {number} is not in the card"
        units = {u for n, u in have if n == number and u}
        if (
            unit
            and units
            and unit not in units
            and tokenize(unit)
            and not (set(tokenize(unit)) & {t for u in units for t in tokenize(u)})
        ):
            return f"{number} {unit} where the card says {number} {'/'.join(sorted(units))}"
    return None


def _negated_stems(text: str) -> tuple[set[str], set[str]]:
    """(stems under a negation, stems not under one), clause by clause."""
    negated: set[str] = set()
    plain: set[str] = set()
    for clause in re.split(r"[,;:.!?]|\b(?:mas|porque|pois|e depois)\b", fold(text)):
        words = re.findall(r"\w+", clause)
        under = False
        for w in words:
            if _NEGATION.fullmatch(w):
                under = True
                continue
            for stem in tokenize(w):
                (negated if under else plain).add(stem)
    return negated, plain


def contradiction(claim: str, support: str) -> str | None:
    """Why `claim` says the opposite of the card sentence `support` (None when it does not)."""
    c_neg, c_plain = _negated_stems(claim)
    s_neg, s_plain = _negated_stems(support)
    flipped = (c_neg & s_plain - s_neg) | (c_plain & s_neg - s_plain)
    # Only stems both sentences share can flip (tokenize drops stopwords already).
    flipped = {w for w in flipped if len(w) > 1}
    if flipped:
        return "negates what the card says (" + ", ".join(sorted(flipped)[:3]) + ")"
    added = [m.group(0) for m in _PERMITS.finditer(fold(claim)) if m.group(0) not in fold(support)]
    if added and _WARNS.search(fold(support)):
        return "says it is fine where the card warns"
    if added:
        return f"adds a reassurance the card does not give ({added[0]!r})"
    return None


@dataclass
class _Support:
    sentence: str
    similarity: float


def _best_support(
    claim: str, card_sentences: list[str], vectors: SentenceVectors
) -> _Support | None:
    if not card_sentences:
        return None
    vecs = vectors.get([claim, *card_sentences])
    sims = vecs[1:] @ vecs[0]
    i = int(np.argmax(sims))
    return _Support(card_sentences[i], float(sims[i]))


def _check(
    claim: str,
    cards: list[str],
    by_id: dict[str, ContextChunk],
    vectors: SentenceVectors,
    minimum: float,
) -> str | None:
    """Why the sentence must be removed (None when it may stay)."""
    if looks_like_injection(claim):
        return "carries instructions"
    card_sentences = [s for c in cards for s in sentences(by_id[c].text)]
    quoted = claim in card_sentences
    reading = read(claim)
    reasons = unsafe_reasons(reading, quoted=quoted)
    if reasons:
        return "advises a treatment change: " + "; ".join(reasons)
    if quoted:
        return None
    soft = {a.action for a in advised(reading, SOFT)}
    if soft and not any(soft & {a.action for a in advised(read(s), SOFT)} for s in card_sentences):
        return "advises to " + "/".join(sorted(soft)) + ", which the card does not"
    support = _best_support(claim, card_sentences, vectors)
    if support is None or support.similarity < minimum:
        similarity = support.similarity if support else 0.0
        return f"not supported by {', '.join(cards)} (similarity {similarity:.2f})"
    opposite = contradiction(claim, support.sentence)
    if opposite:
        return opposite
    problem = _number_problem(claim, support.sentence)
    if problem:
        return problem
    return None


def ground(
    answer: str, parents: list[ContextChunk], vectors: SentenceVectors, min_similarity: float
) -> tuple[str, list[str], list[str]]:
    """Keep the supported, safe sentences. Returns (answer, citations, warnings)."""
    by_id = {p.id: p for p in parents}
    kept: list[str] = []
    warnings: list[str] = []
    for piece in _split_answer(answer):
        cards = [c for c in CITE_MARKER.findall(piece) if c in by_id]
        claim = strip_markers(piece)
        if not claim or not any(ch.isalnum() for ch in claim):
            continue
        if not cards:
            warnings.append(f"removed a sentence without a citation: {claim[:80]!r}")
            continue
        problem = _check(claim, cards, by_id, vectors, min_similarity)
        if problem:
            warnings.append(
                f"removed a sentence citing {', '.join(cards)} that {problem}: {claim[:80]!r}"
            )
            continue
        kept.append(piece)
    text = " ".join(kept)
    citations = list(dict.fromkeys(CITE_MARKER.findall(text)))
    return text, citations, warnings


def verify_draft(
    draft: str,
    claimed: list[str],
    parents: list[ContextChunk],
    vectors: SentenceVectors,
    min_similarity: float,
) -> Verified:
    checked = verify(draft, [p.id for p in parents], claimed)
    text, citations, warnings = ground(checked.answer, parents, vectors, min_similarity)
    return Verified(answer=text, citations=citations, warnings=checked.warnings + warnings)
