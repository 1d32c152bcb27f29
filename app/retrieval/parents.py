"""Dedupe subchunk hits by parent and expand them into parent context chunks (ADR-0020).

This is the shared primitive: dense retrieval calls it today, and any later fusion of
several ranked subchunk lists feeds its fused list through the same function.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.retrieval.models import ContextChunk
from app.store import schema
from app.store.index import Hit


def best_per_parent(hits: Iterable[Hit]) -> dict[str, Hit]:
    """The best-scoring hit of each parent, in first-seen order of parents."""
    best: dict[str, Hit] = {}
    for hit in hits:
        parent = schema.card_id_from(hit.metadata)
        if parent not in best or hit.score > best[parent].score:
            best[parent] = hit
    return best


def best_similarity_per_parent(hits: Iterable[Hit]) -> dict[str, float]:
    out: dict[str, float] = {}
    for hit in hits:
        parent = schema.card_id_from(hit.metadata)
        out[parent] = max(out.get(parent, -1.0), hit.cosine)
    return out


def expand(hit: Hit, similarity: float | None = None) -> ContextChunk:
    """The parent card of a subchunk hit, as a context chunk."""
    card = schema.card_from(hit.metadata)
    chunk = schema.chunk_from(hit.id, hit.document, hit.metadata)
    return ContextChunk(
        id=card.id,
        source=card.source,
        text=card.text,
        score=hit.cosine if similarity is None else similarity,
        metadata={
            "title": card.title,
            "license": card.license,
            "topics": ", ".join(card.topics),
            "accessed_at": card.accessed_at,
            "source": card.source,
            "rank_score": hit.score,
            "matched_chunk_id": chunk.id,
            "matched_chunk_index": chunk.index,
            "matched_chunk_text": chunk.text,
            "matched_start": chunk.start,
            "matched_end": chunk.end,
        },
        parent_id=card.id,
        chunk_index=0,
    )


def dedupe_and_expand(
    hits: Iterable[Hit], top_k: int, min_similarity: float | None = None
) -> list[ContextChunk]:
    """Best hit per parent -> parent chunks, best first, gated and truncated to top_k.

    Parents are ranked by their best hit's `score`; a parent chunk's `score` is its best
    cosine similarity among its subchunks, and `min_similarity` applies to that, after
    dedupe (for dense retrieval the two are the same number).
    """
    hits = list(hits)
    similarity = best_similarity_per_parent(hits)
    best = best_per_parent(hits).values()
    ranked = sorted(best, key=lambda h: (-h.score, schema.card_id_from(h.metadata)))
    chunks = [expand(h, similarity[schema.card_id_from(h.metadata)]) for h in ranked]
    if min_similarity is not None:
        chunks = [c for c in chunks if c.score >= min_similarity]
    return chunks[:top_k]
