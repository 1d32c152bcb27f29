"""Optional cross-encoder reranking of the parent candidates (sentence-transformers
CrossEncoder), over at most RERANK_CANDIDATES cards. Off unless RERANKER_MODEL names a
model (a local path, or a hub id where the hub can be reached, e.g.
BAAI/bge-reranker-v2-m3). The min_similarity gate is unchanged: it uses cosine similarity.
"""

from __future__ import annotations

import logging
import threading

from app.core.config import Settings
from app.retrieval.models import ContextChunk

log = logging.getLogger(__name__)


class Reranker:
    def __init__(self, model: str, threads: int = 0):
        import torch
        from sentence_transformers import CrossEncoder

        if threads > 0:
            torch.set_num_threads(threads)
        self.model_id = model
        self._model = CrossEncoder(model, device="cpu")
        self._lock = threading.Lock()
        log.info("reranker %s loaded", model)

    def rerank(self, question: str, chunks: list[ContextChunk]) -> list[ContextChunk]:
        """Chunks ordered by the cross-encoder's score of (question, matched passage)."""
        if not chunks:
            return chunks
        pairs = [(question, c.matched_text) for c in chunks]
        with self._lock:
            scores = self._model.predict(pairs, show_progress_bar=False)
        for chunk, score in zip(chunks, scores, strict=True):
            chunk.rerank_score = float(score)
        return sorted(chunks, key=lambda c: -(c.rerank_score or 0.0))


_cache: dict[str, Reranker] = {}
_lock = threading.Lock()


def get_reranker(settings: Settings) -> Reranker | None:
    if not settings.reranker_model:
        return None
    with _lock:
        if settings.reranker_model not in _cache:
            _cache[settings.reranker_model] = Reranker(
                settings.reranker_model, settings.torch_threads
            )
        return _cache[settings.reranker_model]
