"""Parent-document retrieval: embed the question, over-fetch subchunks, dedupe by
parent, expand to whole cards, gate on min_similarity."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from app.core.config import Settings
from app.core.errors import IndexNotReadyError
from app.core.text import tokenize
from app.embedding import Embedder
from app.retrieval.fusion import rrf
from app.retrieval.lexical import LexicalIndexCache
from app.retrieval.models import ContextChunk
from app.retrieval.parents import best_per_parent, dedupe_and_expand
from app.retrieval.rerank import Reranker
from app.store import schema
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
    def __init__(
        self,
        store: IndexStore,
        embedder: Embedder,
        settings: Settings,
        reranker: Reranker | None = None,
    ):
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.lexical = LexicalIndexCache(store)
        self.reranker = reranker

    def check_build(self) -> None:
        """Refuse to search a build made with another model, dimension, chunker budget,
        tokenizer or schema: its results would be wrong. Cheap: the active collection and
        its metadata are cached by the store."""
        expected = schema.expected_build(
            self.settings, self.embedder.model_id, self.embedder.dimension
        )
        diff = schema.differences(self.store.active_metadata(), expected)
        if diff:
            raise IndexNotReadyError(
                "the active index was built differently from this service: "
                + "; ".join(diff)
                + ". Rebuild it with `make ingest-clean` "
                "(compose: `docker compose run --rm ingest-clean`)."
            )

    def fetch_size(self, top_k: int) -> int:
        return min(top_k * self.settings.overfetch_multiple, self.settings.overfetch_max)

    def search_hits(self, vector: list[float], top_k: int) -> tuple[list[Hit], int]:
        """Over-fetch subchunks until top_k distinct parents are found or the index (or
        the cap) is exhausted. Returns (hits, rows fetched)."""
        total = schema.chunk_count(self.store.active_metadata()) or self.store.count()
        cap = min(self.settings.overfetch_max, total)
        n = min(self.fetch_size(top_k), cap)
        while True:
            hits = self.store.query(vector, max(n, 1))
            if len(best_per_parent(hits)) >= top_k or n >= cap:
                return hits, n
            n = min(n * 2, cap)

    def fuse(
        self,
        question: str,
        query_vector: np.ndarray,
        dense: list[Hit],
        n: int,
        timings: dict[str, float],
    ) -> list[Hit]:
        """BM25 (and dense, in hybrid mode) subchunk lists fused with RRF. Every fused hit
        keeps its cosine similarity to the question, for the min_similarity gate."""
        s = self.settings
        t0 = time.perf_counter()
        lexical = self.lexical.get().search(tokenize(question), n)
        t1 = time.perf_counter()
        rankings, weights = [[i for i, _ in lexical]], [s.rrf_weight_bm25]
        if s.retrieval_mode == "hybrid":
            rankings.insert(0, [h.id for h in dense])
            weights.insert(0, s.rrf_weight_dense)
        fused = rrf(rankings, weights, s.rrf_k)
        by_id = {h.id: h for h in dense}
        missing = [i for i in fused if i not in by_id]
        if missing:
            for row, vector in self.store.get_embedded(missing):
                cosine = float(np.dot(vector, query_vector))
                by_id[row.id] = Hit(row.id, row.document, row.metadata, cosine)
        hits = [
            Hit(i, by_id[i].document, by_id[i].metadata, score, similarity=by_id[i].cosine)
            for i, score in fused.items()
            if i in by_id
        ]
        timings["bm25"] = (t1 - t0) * 1000
        timings["fusion"] = (time.perf_counter() - t1) * 1000
        return hits

    def search(self, question: str, top_k: int | None = None) -> Retrieval:
        wanted = top_k or self.settings.top_k
        # With a reranker, fetch up to RERANK_CANDIDATES cards, rerank, then keep `wanted`.
        k = max(wanted, self.settings.rerank_candidates) if self.reranker else wanted
        self.check_build()
        t0 = time.perf_counter()
        query_vector = self.embedder.embed([question])[0]
        t1 = time.perf_counter()
        timings = {"embed": (t1 - t0) * 1000}
        if self.settings.retrieval_mode == "bm25":
            dense: list[Hit] = []
            fetched = self.fetch_size(k)
        else:
            dense, fetched = self.search_hits(query_vector.tolist(), k)
        timings["vector_query"] = (time.perf_counter() - t1) * 1000
        hits = dense
        if self.settings.retrieval_mode != "dense":
            hits = self.fuse(question, query_vector, dense, fetched, timings)
        t2 = time.perf_counter()
        candidates = dedupe_and_expand(hits, k)
        timings["dedupe_expand"] = (time.perf_counter() - t2) * 1000
        if self.reranker:
            t3 = time.perf_counter()
            capped = candidates[: self.settings.rerank_candidates]
            candidates = self.reranker.rerank(question, capped)
            timings["rerank"] = (time.perf_counter() - t3) * 1000
        candidates = candidates[:wanted]
        parents = [c for c in candidates if c.score >= self.settings.min_similarity]
        return Retrieval(
            candidates=candidates,
            parents=parents,
            fetched=fetched,
            query_vector=query_vector,
            timings_ms=timings,
        )
