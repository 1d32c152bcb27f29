"""Dedupe subchunk hits by parent, rank the parents, expand them into parent context
chunks (ADR-0020).

This is the shared primitive: dense retrieval calls it, and the fusion of several ranked
subchunk lists (hybrid, BM25) feeds its fused list through the same function. Hits are
row ids with scores; cards and subchunk texts come from the build snapshot the hits
were found in.

Ranking: a card's rank score is its best subchunk's score plus `bonus` for each other
of its subchunks among the first `window` hits (max plus a small bonus for more matching
chunks). A card that matches in several places is more likely the answer than one that
matches once, slightly better. The card's `score` (what the min_similarity gate and the
API report) stays its best cosine similarity.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.retrieval.models import ContextChunk
from app.store.index import Hit
from app.store.snapshot import BuildSnapshot


def best_per_parent(hits: Iterable[Hit]) -> dict[str, Hit]:
    """The best-scoring hit of each parent, in first-seen order of parents."""
    best: dict[str, Hit] = {}
    for hit in hits:
        parent = hit.card_id
        if parent not in best or hit.score > best[parent].score:
            best[parent] = hit
    return best


def best_similarity_per_parent(hits: Iterable[Hit]) -> dict[str, float]:
    out: dict[str, float] = {}
    for hit in hits:
        out[hit.card_id] = max(out.get(hit.card_id, -1.0), hit.cosine)
    return out


def rank_scores(hits: list[Hit], bonus: float = 0.0, window: int = 0) -> dict[str, float]:
    """Rank score per parent: best hit score + bonus x (other hits of it in the window)."""
    best = best_per_parent(hits)
    scores = {parent: hit.score for parent, hit in best.items()}
    if bonus:
        for hit in hits[:window]:
            if hit is not best[hit.card_id]:
                scores[hit.card_id] += bonus
    return scores


def expand(hit: Hit, build: BuildSnapshot, similarity: float, rank_score: float) -> ContextChunk:
    """The parent card of a subchunk hit, as a context chunk."""
    card = build.cards[hit.card_id]
    return ContextChunk(
        card=card, score=similarity, rank_score=rank_score, matched=build.chunks[hit.id]
    )


def dedupe_and_expand(
    hits: Iterable[Hit],
    build: BuildSnapshot,
    top_k: int,
    min_similarity: float | None = None,
    bonus: float = 0.0,
    window: int = 0,
) -> list[ContextChunk]:
    """Best hit per parent -> parent chunks, best first, gated and truncated to top_k.

    Parents are ranked by `rank_scores`; a parent chunk's `score` is its best cosine
    similarity among its subchunks, and `min_similarity` applies to that, after dedupe
    (for dense retrieval without a bonus the two are the same number).
    """
    hits = [h for h in hits if h.id in build.chunks]  # rows of this build only
    similarity = best_similarity_per_parent(hits)
    best = best_per_parent(hits)
    scores = rank_scores(hits, bonus, window)
    ranked = sorted(best, key=lambda p: (-scores[p], p))
    chunks = [expand(best[p], build, similarity[p], scores[p]) for p in ranked]
    if min_similarity is not None:
        chunks = [c for c in chunks if c.score >= min_similarity]
    return chunks[:top_k]
