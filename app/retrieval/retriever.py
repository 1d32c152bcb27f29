"""Parent-document retrieval: embed the question, over-fetch subchunks, dedupe by
parent, expand to whole cards, gate on min_similarity."""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass, field

import numpy as np

from app.core.config import Settings
from app.core.errors import IndexNotReadyError
from app.core.text import tokenize
from app.embedding import Embedder
from app.retrieval.fusion import rrf
from app.retrieval.lexical import LexicalIndexCache
from app.retrieval.models import ContextChunk
from app.retrieval.parents import dedupe_and_expand
from app.retrieval.rerank import Reranker
from app.store import schema
from app.store.index import Hit, IndexStore, QueryResult
from app.store.snapshot import BuildSnapshot


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
        # Per-process constants of the hot path, computed once.
        self.expected = schema.expected_build(settings, embedder.model_id, embedder.dimension)
        self.dense_only = settings.retrieval_mode == "dense"
        self.bonus = settings.rank_chunk_bonus if self.dense_only else 0.0
        self._compatible: str | None = None  # name of the last build found compatible

    def check_build(self) -> None:
        """Refuse to search a build made with another model, dimension, chunker budget,
        tokenizer or schema: its results would be wrong. A build never changes once
        ready, so each build is checked once (the active pointer is re-read by the store
        every few seconds: a switch is noticed)."""
        name, meta = self.store.active_build()
        if name == self._compatible:
            return
        diff = schema.differences(meta, self.expected)
        if diff:
            raise IndexNotReadyError(
                "the active index was built differently from this service: "
                + "; ".join(diff)
                + ". Rebuild it with `make ingest-clean` "
                "(compose: `docker compose run --rm ingest-clean`)."
            )
        self._compatible = name

    def fetch_size(self, top_k: int) -> int:
        return min(top_k * self.settings.overfetch_multiple, self.settings.overfetch_max)

    def search_hits(self, vector: list[float], top_k: int) -> QueryResult:
        """Over-fetch subchunks until top_k distinct parents are found or the index (or
        the cap) is exhausted."""

        def too_few(hits: list[Hit]) -> bool:
            return len({h.card_id for h in hits}) < top_k

        n = max(self.fetch_size(top_k), self.settings.rank_window if self.bonus else 0)
        return self.store.query(vector, n, more=too_few, cap=self.settings.overfetch_max)

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
        cosine = {h.id: h.cosine for h in dense}
        missing = [i for i in fused if i not in cosine]
        if missing:
            for row_id, vector in self.store.vectors(missing).items():
                cosine[row_id] = float(np.dot(vector, query_vector))
        hits = [Hit(i, score, similarity=cosine[i]) for i, score in fused.items() if i in cosine]
        timings["bm25"] = (t1 - t0) * 1000
        timings["fusion"] = (time.perf_counter() - t1) * 1000
        return hits

    def _nearest(
        self, question: str, query_vector: np.ndarray, k: int, timings: dict[str, float]
    ) -> tuple[BuildSnapshot, list[Hit], int]:
        """(build, ranked subchunk hits, rows fetched) for the retrieval mode."""
        t1 = time.perf_counter()
        if self.settings.retrieval_mode == "bm25":
            build, dense, fetched = self.store.active_snapshot(), [], self.fetch_size(k)
        else:
            found = self.search_hits(query_vector.tolist(), k)
            build, dense, fetched = found.build, found.hits, found.fetched
        timings["vector_query"] = (time.perf_counter() - t1) * 1000
        if self.dense_only:
            return build, dense, fetched
        return build, self.fuse(question, query_vector, dense, fetched, timings), fetched

    def _missing(
        self,
        build: BuildSnapshot,
        include: Collection[str],
        found: list[ContextChunk],
        query_vector: np.ndarray,
    ) -> list[ContextChunk]:
        """The cards of `include` that are not among `found`, each as its best subchunk by
        cosine, best first. "tomo o aas todo dia de manha, é antes ou depois de come?" named
        the AAS card's medicine, yet none of its subchunks was among the 15 cards the
        nearest rows gave, so the card ranker never saw it (fresh author c1)."""
        have = {c.id for c in found}
        wanted = {c for c in include if c not in have and c in build.cards}
        if not wanted:
            return []
        rows = [row_id for row_id, chunk in build.chunks.items() if chunk.card_id in wanted]
        hits = []
        for row_id, values in self.store.vectors(rows).items():
            cosine = float(np.dot(np.asarray(values), query_vector))
            hits.append(Hit(row_id, cosine, similarity=cosine))
        hits.sort(key=lambda h: -h.score)
        # No chunk bonus: none of its rows was among the nearest, where the bonus counts.
        added = dedupe_and_expand(hits, build, len(wanted))
        if not self.dense_only and found:  # a fused rank score is on another scale: last
            floor = min(c.rank_score for c in found)
            added = [c.model_copy(update={"rank_score": floor}) for c in added]
        return added

    def search(
        self,
        question: str,
        top_k: int | None = None,
        vector: np.ndarray | None = None,
        include: Collection[str] = (),
    ) -> Retrieval:
        """Cards for a question; `vector` is its embedding when the caller already has it.
        `include`: cards that must be among the candidates (the agent passes the cards about
        a medicine the question names); one the nearest rows missed is added after them,
        scored by its own best subchunk."""
        wanted = top_k or self.settings.top_k
        # With a reranker, fetch up to RERANK_CANDIDATES cards, rerank, then keep `wanted`.
        k = max(wanted, self.settings.rerank_candidates) if self.reranker else wanted
        self.check_build()
        t0 = time.perf_counter()
        query_vector = self.embedder.embed([question])[0] if vector is None else np.asarray(vector)
        timings = {"embed": (time.perf_counter() - t0) * 1000}
        build, hits, fetched = self._nearest(question, query_vector, k, timings)
        t2 = time.perf_counter()
        candidates = dedupe_and_expand(
            hits, build, k, bonus=self.bonus, window=self.settings.rank_window
        )
        timings["dedupe_expand"] = (time.perf_counter() - t2) * 1000
        if self.reranker:
            t3 = time.perf_counter()
            capped = candidates[: self.settings.rerank_candidates]
            candidates = self.reranker.rerank(question, capped)
            timings["rerank"] = (time.perf_counter() - t3) * 1000
        candidates = candidates[:wanted]
        candidates += self._missing(build, include, candidates, query_vector)
        parents = [c for c in candidates if c.score >= self.settings.min_similarity]
        return Retrieval(
            candidates=candidates,
            parents=parents,
            fetched=fetched,
            query_vector=query_vector,
            timings_ms=timings,
        )
