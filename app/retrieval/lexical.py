"""BM25 over the same subchunks as the vectors (bm25s), tokenized for Portuguese.

Ingest stores each row's tokens (app.core.text.tokenize) in the same collection as its
vector, so the lexical index is versioned and switched with the vector index in one step:
the API builds its BM25 matrix from the active collection and rebuilds it when the active
build changes. It can never serve BM25 for another build.
"""

from __future__ import annotations

import logging
import threading

from app.store.index import IndexStore

log = logging.getLogger(__name__)
logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs every index build at DEBUG


class LexicalIndex:
    def __init__(self, collection: str, ids: list[str], tokens: list[list[str]]):
        import bm25s

        self.collection = collection
        self.ids = ids
        self._bm25 = bm25s.BM25()
        self._bm25.index(tokens, show_progress=False)

    def search(self, query_tokens: list[str], n: int) -> list[tuple[str, float]]:
        if not query_tokens or not self.ids:
            return []
        k = min(n, len(self.ids))
        docs, scores = self._bm25.retrieve([query_tokens], k=k, show_progress=False)
        return [
            (self.ids[int(d)], float(s)) for d, s in zip(docs[0], scores[0], strict=True) if s > 0
        ]


class LexicalIndexCache:
    """The BM25 index of the active build, rebuilt when the active build changes."""

    def __init__(self, store: IndexStore):
        self.store = store
        self._index: LexicalIndex | None = None
        self._lock = threading.Lock()

    def get(self) -> LexicalIndex:
        name = self.store.active_collection().name
        with self._lock:
            if self._index is None or self._index.collection != name:
                rows = self.store.lexical_rows()
                self._index = LexicalIndex(name, [i for i, _ in rows], [t for _, t in rows])
                log.info("BM25 index built for %s (%d rows)", name, len(rows))
            return self._index
