"""The banks' embeddings stored in the store (issue 29): the emergency exemplars, the
question bank and the card sentences of the active build, embedded once by ingest, read
by each worker at start instead of being embedded again.

Bank `key` (app.core.vector_cache.cache_key: a hash of the embedding model's id and the
bank's texts, in order) lives in collection `{prefix}-bank-{key}`, one row per text, in
order (ids `b000000`, `b000001`, ...), with the vectors and no documents. The collection's
metadata names the bank and the model and says how many texts it holds; `complete` is set
last, so a bank whose writing was cut short is never read: it is written again.
Content-keyed, so a changed bank (or another model) is another collection, never a stale
one; the embedded store and the Chroma server hold them the same way.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from app.store import paging
from app.store.builds import Builds
from app.store.calls import ChromaCalls
from app.store.schema import Row

COMPLETE = "complete"


class BankSets:
    """Names, writes, lists and reads the stored banks."""

    def __init__(self, calls: ChromaCalls, builds: Builds, prefix: str):
        self._calls = calls
        self._builds = builds
        self._prefix = prefix

    def name_for(self, key: str) -> str:
        return f"{self._prefix}-bank-{key}"

    def names(self) -> list[str]:
        names = self._calls.collection_names()
        return sorted(n for n in names if n.startswith(f"{self._prefix}-bank-"))

    def write(self, key: str, meta: dict[str, Any], vectors: np.ndarray, batch: int) -> None:
        """Store bank `key` (an incomplete one of the same key is replaced; one this write
        leaves incomplete is removed)."""
        name = self.name_for(key)
        self._calls.delete_collection(name)
        count = int(vectors.shape[0])
        meta = {**meta, "texts": count, COMPLETE: False}
        rows = [Row(id=f"b{i:06d}", document="", metadata={"i": i}) for i in range(count)]
        done = {**meta, COMPLETE: True}
        try:
            self._builds.create(name, meta)
            self._builds.write_rows(name, rows, vectors.tolist(), batch)
            self._calls.write_call(
                f"mark {name} complete",
                lambda c: c.get_collection(name, embedding_function=None).modify(metadata=done),
            )
        except BaseException:
            # a bank cut short (a full disk) is never read; give its space back now
            with contextlib.suppress(Exception):  # the write's own error says more
                self._calls.delete_collection(name)
            raise

    def has(self, key: str, count: int) -> bool:
        return self._complete(key, count) is not None

    def _complete(self, key: str, count: int) -> Any:
        from chromadb.errors import NotFoundError

        def find(client: Any) -> Any:
            try:
                col = client.get_collection(self.name_for(key), embedding_function=None)
            except (NotFoundError, ValueError):
                return None
            meta = col.metadata or {}
            return col if meta.get(COMPLETE) is True and meta.get("texts") == count else None

        return self._calls.call(f"find bank {key}", find)

    def read(self, key: str, count: int) -> np.ndarray | None:
        """The `count` vectors of bank `key`, in order, or None when it is not stored (or
        not completely)."""

        def read(client: Any) -> np.ndarray | None:
            from chromadb.errors import NotFoundError

            try:
                col = client.get_collection(self.name_for(key), embedding_function=None)
            except (NotFoundError, ValueError):
                return None
            meta = col.metadata or {}
            if meta.get(COMPLETE) is not True or meta.get("texts") != count:
                return None
            ids: list[str] = []
            parts: list[np.ndarray] = []
            offset = 0
            while True:
                res = col.get(limit=paging.PAGE, offset=offset, include=["embeddings"])
                got = res["ids"]
                if got:
                    ids.extend(got)
                    parts.append(np.asarray(res["embeddings"], dtype=np.float32))
                if len(got) < paging.PAGE:
                    break
                offset += len(got)
            if len(ids) != count:
                return None
            vectors = np.concatenate(parts) if parts else np.zeros((0, 1), np.float32)
            return vectors[np.argsort(np.array(ids), kind="stable")]

        result: np.ndarray | None = self._calls.call(f"read bank {key}", read)
        return result
