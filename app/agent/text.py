"""Small text helpers shared by the generators and verification."""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=[\"'“(«]?[A-ZÀ-Ý0-9])")
CITE_MARKER = re.compile(r"\[cite:\s*([^\]\s]+)\s*\]")


def sentences(text: str) -> list[str]:
    """Sentences of a card or an answer, whitespace-normalized."""
    out = []
    for paragraph in re.split(r"\n\s*\n", text):
        for sentence in _SENTENCE_END.split(" ".join(paragraph.split())):
            if sentence.strip():
                out.append(sentence.strip())
    return out


def strip_markers(text: str) -> str:
    return " ".join(CITE_MARKER.sub("", text).split())
