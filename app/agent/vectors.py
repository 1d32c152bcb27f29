"""Embeddings of card sentences, cached per process (cards change only on ingest).

Built once per process in the API's Resources and shared by the extractive generator, the
verification step and the answerability decision.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from app.embedding import Embedder


class SentenceVectors:
    def __init__(self, embedder: Embedder, max_items: int = 20_000):
        self.embedder = embedder
        self.max_items = max_items
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def missing(self, texts: list[str]) -> list[str]:
        """The texts (each once, in order) that are not cached: what get() would embed."""
        with self._lock:
            return [t for t in dict.fromkeys(texts) if t not in self._cache]

    def put(self, texts: list[str], vectors: np.ndarray) -> None:
        """Cache vectors computed elsewhere (the card sentences stored with the build)."""
        with self._lock:
            self._cache.update(zip(texts, np.asarray(vectors, dtype=np.float32), strict=True))
            while len(self._cache) > self.max_items:
                self._cache.popitem(last=False)

    def get(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        found = dict(zip(missing, self.embedder.embed(missing), strict=True)) if missing else {}
        with self._lock:
            self._cache.update(found)
            rows = [found[t] if t in found else self._cache[t] for t in texts]
            while len(self._cache) > self.max_items:
                self._cache.popitem(last=False)
        return np.stack(rows)
