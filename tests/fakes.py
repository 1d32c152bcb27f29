"""Small fakes for unit tests: no network, no model download."""

from __future__ import annotations

import hashlib
import re
from datetime import date

import numpy as np

from app.core.cards import Card
from app.retrieval.models import ContextChunk
from app.store.schema import StoredChunk


class FakeEmbedder:
    """Deterministic hashed bag-of-words vectors: texts sharing words are close."""

    model_id = "fake/hashed-bow"

    def __init__(self, dimension: int = 256):
        self.dimension = dimension
        self.calls = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w{4,}", text.lower()):
                h = int(hashlib.md5(word.encode()).hexdigest(), 16)
                out[row, h % self.dimension] += 1.0
            norm = np.linalg.norm(out[row])
            out[row] = out[row] / norm if norm else out[row]
            if not norm:
                out[row, 0] = 1.0
        return out


def context_chunk(
    card_id: str,
    text: str = "t",
    score: float = 0.5,
    *,
    title: str | None = None,
    source: str = "s",
    matched: tuple[int, int] | None = None,
) -> ContextChunk:
    """A retrieved card for unit tests, unvalidated (short texts and titles allowed).
    `matched` is the (start, end) of the subchunk that matched in the text."""
    card = Card.model_construct(
        id=card_id,
        title=card_id if title is None else title,
        text=text,
        source=source,
        license="CC-BY-4.0",
        topics=["t"],
        accessed_at=date(2026, 1, 1),
        reviewed_at=date(2026, 1, 1),
    )
    chunk = None
    if matched is not None:
        start, end = matched
        chunk = StoredChunk(f"{card_id}::00", card_id, 0, start, end, text[start:end])
    return ContextChunk(card=card, score=score, rank_score=score, matched=chunk)
