"""Parent-document retrieval: embed the question, over-fetch subchunks, dedupe by
parent, expand to whole cards, gate on min_similarity."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from app.core.config import Settings
from app.embedding import Embedder
from app.retrieval.models import ContextChunk
from app.retrieval.parents import best_per_parent, dedupe_and_expand
from app.store.index import Hit, IndexStore


@dataclass
class Retrieval:
    """What retrieval found for one question.

    `candidates`: the top_k parents before the min_similarity gate (for reporting).
    `parents`: the candidates that pass the gate (what the agent may use and cite).
    """

    candidates: list[ContextChunk]
    parents: list[ContextChunk]
    fetched: int
    query_vector: np.ndarray
    timings_ms: dict[str, float] = field(default_factory=dict)


class Retriever:
    def __init__(self, store: IndexStore, embedder: Embedder, settings: Settings):
        self.store = store
        self.embedder = embedder
        self.settings = settings

    def fetch_size(self, top_k: int) -> int:
        return min(top_k * self.settings.overfetch_multiple, self.settings.overfetch_max)

    def search_hits(self, vector: list[float], top_k: int) -> tuple[list[Hit], int]:
        """Over-fetch subchunks until top_k distinct parents are found or the index (or
        the cap) is exhausted. Returns (hits, rows fetched)."""
        total = int(self.store.active_metadata().get("chunk_count", 0)) or self.store.count()
        cap = min(self.settings.overfetch_max, total)
        n = min(self.fetch_size(top_k), cap)
        while True:
            hits = self.store.query(vector, max(n, 1))
            if len(best_per_parent(hits)) >= top_k or n >= cap:
                return hits, n
            n = min(n * 2, cap)

    def search(self, question: str, top_k: int | None = None) -> Retrieval:
        k = top_k or self.settings.top_k
        t0 = time.perf_counter()
        query_vector = self.embedder.embed([question])[0]
        t1 = time.perf_counter()
        hits, fetched = self.search_hits(query_vector.tolist(), k)
        t2 = time.perf_counter()
        candidates = dedupe_and_expand(hits, k)
        parents = [c for c in candidates if c.score >= self.settings.min_similarity]
        t3 = time.perf_counter()
        return Retrieval(
            candidates=candidates,
            parents=parents,
            fetched=fetched,
            query_vector=query_vector,
            timings_ms={
                "embed": (t1 - t0) * 1000,
                "vector_query": (t2 - t1) * 1000,
                "dedupe_expand": (t3 - t2) * 1000,
            },
        )
