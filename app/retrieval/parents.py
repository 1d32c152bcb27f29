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


def expand(hit: Hit) -> ContextChunk:
    """The parent card of a subchunk hit, as a context chunk."""
    meta = hit.metadata
    parent_meta: dict[str, Any] = {key: meta[key] for key in PARENT_FIELDS if key in meta}
    parent_meta["title"] = parent_meta.pop("parent_title", "")
    parent_meta.update(
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
        score=hit.score,
        metadata=parent_meta,
        parent_id=str(meta["parent_id"]),
        chunk_index=0,
    )


def dedupe_and_expand(
    hits: Iterable[Hit], top_k: int, min_similarity: float | None = None
) -> list[ContextChunk]:
    """Best hit per parent -> parent chunks, best first, gated and truncated to top_k.

    `min_similarity` applies to the best-per-parent score, after dedupe.
    """
    best = best_per_parent(hits).values()
    ranked = sorted(best, key=lambda h: (-h.score, str(h.metadata["parent_id"])))
    if min_similarity is not None:
        ranked = [h for h in ranked if h.score >= min_similarity]
    return [expand(h) for h in ranked[:top_k]]
