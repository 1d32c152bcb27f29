"""Dedupe subchunk hits by parent and expand them into parent context chunks (ADR-0020).

This is the shared primitive: dense retrieval calls it today, and any later fusion of
several ranked subchunk lists feeds its fused list through the same function.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.retrieval.models import ContextChunk
from app.store.index import Hit

PARENT_FIELDS = ("parent_title", "license", "topics", "accessed_at", "source")


def best_per_parent(hits: Iterable[Hit]) -> dict[str, Hit]:
    """The best-scoring hit of each parent, in first-seen order of parents."""
    best: dict[str, Hit] = {}
    for hit in hits:
        parent = str(hit.metadata["parent_id"])
        if parent not in best or hit.score > best[parent].score:
            best[parent] = hit
    return best


def best_similarity_per_parent(hits: Iterable[Hit]) -> dict[str, float]:
    out: dict[str, float] = {}
    for hit in hits:
        parent = str(hit.metadata["parent_id"])
        out[parent] = max(out.get(parent, -1.0), hit.cosine)
    return out


def expand(hit: Hit, similarity: float | None = None) -> ContextChunk:
    """The parent card of a subchunk hit, as a context chunk."""
    meta = hit.metadata
    parent_meta: dict[str, Any] = {key: meta[key] for key in PARENT_FIELDS if key in meta}
    parent_meta["title"] = parent_meta.pop("parent_title", "")
    parent_meta.update(
        rank_score=hit.score,
        matched_chunk_id=hit.id,
        matched_chunk_index=int(meta["chunk_index"]),
        matched_chunk_text=hit.document,
        matched_start=int(meta.get("chunk_start", 0)),
        matched_end=int(meta.get("chunk_end", 0)),
    )
    return ContextChunk(
        id=str(meta["parent_id"]),
        source=str(meta.get("source", "")),
        text=str(meta["parent_text"]),
        score=hit.cosine if similarity is None else similarity,
        metadata=parent_meta,
        parent_id=str(meta["parent_id"]),
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
    ranked = sorted(best, key=lambda h: (-h.score, str(h.metadata["parent_id"])))
    chunks = [expand(h, similarity[str(h.metadata["parent_id"])]) for h in ranked]
    if min_similarity is not None:
        chunks = [c for c in chunks if c.score >= min_similarity]
    return chunks[:top_k]
