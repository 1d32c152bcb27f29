"""Verification of a draft: the citation contract, then grounding.

Grounding applies to every generator: each sentence must carry a valid citation and be
close (embedding similarity) to a sentence of a card it cites, and any number it states
must appear in those cards. Sentences that fail are removed and reported. An extractive
draft passes by construction; an LLM draft that followed an injected instruction or
invented a dose does not.
"""

from __future__ import annotations

import re

import numpy as np

from app.agent.citations import Verified, verify
from app.agent.generators import SentenceVectors
from app.agent.safety import fold, looks_like_injection
from app.agent.text import CITE_MARKER, sentences, strip_markers
from app.retrieval.models import ContextChunk

_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
# A sentence that talks about changing a dose or stopping a medicine is only kept when it
# also says not to do it alone or sends the patient to the care team (system rule 4).
_DOSE_CHANGE = re.compile(
    r"\b(dobr|tripl|aument|diminu|reduz|suspend|interromp|pare\b|parar|deix\w* de tomar)"
)
_SAFE_FRAMING = re.compile(
    r"\b(nao|nunca|sem orientacao|por conta propria|medic[oa]|farmaceutic[oa]|equipe)\b"
)


def _split_answer(answer: str) -> list[str]:
    """Answer sentences, each keeping the markers that follow it."""
    pieces = re.split(r"(?<=[.!?…])\s+(?=[\"'“(«]?[A-ZÀ-Ý0-9])|(?<=\])\s+(?!\[cite:)", answer)
    return [p.strip() for p in pieces if p.strip()]


def ground(
    answer: str, parents: list[ContextChunk], vectors: SentenceVectors, min_similarity: float
) -> tuple[str, list[str], list[str]]:
    """Keep the supported sentences. Returns (answer, citations, warnings)."""
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
        if looks_like_injection(claim):
            warnings.append(f"removed a sentence that carries instructions: {claim[:80]!r}")
            continue
        card_sentences = [s for c in cards for s in sentences(by_id[c].text)]
        if claim in card_sentences:  # quoted from the card it cites
            kept.append(piece)
            continue
        folded = fold(claim)
        if _DOSE_CHANGE.search(folded) and not _SAFE_FRAMING.search(folded):
            warnings.append(f"removed a sentence advising a dose change: {claim[:80]!r}")
            continue
        card_text = " ".join(by_id[c].text for c in cards)
        numbers = [n for n in _NUMBER.findall(claim) if n not in card_text]
        if numbers:
            warnings.append(
                f"removed a sentence with numbers not in {', '.join(cards)} ({', '.join(numbers)})"
            )
            continue
        vecs = vectors.get([claim, *card_sentences])
        support = float(np.max(vecs[1:] @ vecs[0]))
        if support < min_similarity:
            warnings.append(
                f"removed a sentence not supported by {', '.join(cards)} "
                f"(similarity {support:.2f}): {claim[:80]!r}"
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
