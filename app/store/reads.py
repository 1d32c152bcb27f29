"""Reads of the active build for serving: nearest-subchunk queries, rows, vectors, cards.

Every read runs on the collection the active pointer names (app.store.pointer) and is
made again once on the new build when the pointer moved meanwhile. The cards and
subchunks of the active build are read once per build into a BuildSnapshot; queries
then read only row ids and distances.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from app.core.cards import Card
from app.core.errors import IndexNotReadyError, StoreWriteError
from app.store import schema
from app.store.calls import ChromaCalls
from app.store.paging import paged_get
from app.store.pointer import ActivePointer
from app.store.schema import Row
from app.store.snapshot import BuildSnapshot

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class Hit:
    """One ranked subchunk (a row id: its text and card come from the build snapshot).
    `score` orders hits (cosine similarity for a vector query, a fused rank score after
    fusion); `similarity` is always the cosine similarity to the question, which the
    min_similarity gate uses."""

    id: str
    score: float
    similarity: float | None = None

    @property
    def cosine(self) -> float:
        return self.score if self.similarity is None else self.similarity

    @property
    def card_id(self) -> str:
        return schema.card_id_of(self.id)


@dataclass(frozen=True)
class QueryResult:
    """Nearest subchunks of the active build, with that build's snapshot (the ids of
    `hits` are rows of `build`). `fetched`: rows asked for in the last query."""

    build: BuildSnapshot
    hits: list[Hit]
    fetched: int


def _apply(fn: Callable[[Any], T], collection: Any, _client: Any) -> T:
    return fn(collection)


class Reads:
    """Reads of the active build, and its snapshot. Safe to share between threads."""

    def __init__(self, calls: ChromaCalls, pointer: ActivePointer):
        self._calls = calls
        self._pointer = pointer
        self._snapshot: BuildSnapshot | None = None  # of the active build, loaded once
        self._snapshot_lock = threading.Lock()

    def on_active(self, what: str, fn: Callable[[Any], T]) -> T:
        """Run fn(active collection); re-resolve once if the build was switched meanwhile.

        `ingest --clean` drops the old build as soon as it has switched, while this process
        may still hold it (the pointer is cached POINTER_TTL_S). Reading a build being
        dropped fails with NotFoundError, or, caught mid-deletion by the Chroma server, with
        another store error ("Missing metadata segment"): either way, when the pointer
        now names another build, the call is made again on it."""
        from chromadb.errors import ChromaError, NotFoundError

        for attempt in (1, 2):
            collection = self._pointer.collection(refresh=attempt == 2)
            try:
                return self._calls.call(what, partial(_apply, fn, collection))
            except NotFoundError as exc:
                if attempt == 2:
                    raise IndexNotReadyError(
                        f"the active index disappeared during {what}: run `make ingest`"
                    ) from exc
            except (ChromaError, StoreWriteError):
                if attempt == 2 or self._pointer.target() == collection.name:
                    raise
            log.info("active build changed during %s; re-resolving", what)
        raise AssertionError("unreachable")

    def count(self) -> int:
        return int(self.on_active("count", lambda col: col.count()))

    def _snapshot_of(self, collection: Any) -> BuildSnapshot:
        """The snapshot of `collection`, loaded on first use (once per build)."""
        snapshot = self._snapshot
        if snapshot is not None and snapshot.name == collection.name:
            return snapshot
        with self._snapshot_lock:  # one load at a time; the others wait and reuse it
            snapshot = self._snapshot
            if snapshot is None or snapshot.name != collection.name:
                started = time.perf_counter()
                rows = paged_get(collection, ["documents", "metadatas"])
                snapshot = BuildSnapshot.from_rows(collection.name, collection.metadata or {}, rows)
                self._snapshot = snapshot  # the previous build's snapshot is dropped
                log.info(
                    "build %s loaded: %d cards, %d chunks in %.2f s",
                    collection.name,
                    len(snapshot.cards),
                    len(snapshot.chunks),
                    time.perf_counter() - started,
                )
            return snapshot

    @property
    def loaded_build(self) -> str | None:
        """The build whose snapshot this process holds (None before the first load)."""
        snapshot = self._snapshot
        return snapshot.name if snapshot is not None else None

    def active_snapshot(self) -> BuildSnapshot:
        """The cards and subchunks of the active build (cached per build)."""
        # The snapshot in hand, when the pointer (cached POINTER_TTL_S) still names its build:
        # no store call, so no bounded call either. Several steps of every answer ask for it,
        # and the thread hop of the bounded call was 7% of a worker's samples under load.
        snapshot = self._snapshot
        if snapshot is not None and snapshot.name == self._pointer.collection().name:
            return snapshot
        return self.on_active("load the active build", self._snapshot_of)

    def query(
        self,
        embedding: Sequence[float],
        n_results: int,
        more: Callable[[list[Hit]], bool] | None = None,
        cap: int | None = None,
    ) -> QueryResult:
        """The `n_results` rows nearest to `embedding` (ids and distances only). While
        `more(hits)` is true, the query is repeated with twice as many rows, up to `cap`
        and the size of the build. One build throughout, even if the active pointer moves.
        """
        vector = [embedding if isinstance(embedding, list) else list(map(float, embedding))]

        def run(col: Any) -> QueryResult:
            build = self._snapshot_of(col)
            limit = min(cap or len(build.chunks), len(build.chunks))
            n = max(min(n_results, limit), 1)
            while True:
                res = col.query(query_embeddings=vector, n_results=n, include=["distances"])
                hits = [
                    Hit(id=i, score=1.0 - float(d))
                    for i, d in zip(res["ids"][0], res["distances"][0], strict=True)
                ]
                if more is None or n >= limit or not more(hits):
                    return QueryResult(build, hits, n)
                n = min(n * 2, limit)

        return self.on_active("query", run)

    def vectors(self, ids: list[str]) -> dict[str, list[float]]:
        """Stored vectors of rows found by another ranking (BM25), by row id."""

        def run(col: Any) -> dict[str, list[float]]:
            res = col.get(ids=ids, include=["embeddings"])
            return {
                i: list(map(float, e)) for i, e in zip(res["ids"], res["embeddings"], strict=True)
            }

        return self.on_active("get vectors by id", run)

    def get_rows(self, where: dict[str, Any] | None = None, limit: int | None = None) -> list[Row]:
        """Rows of the active build, read in pages (app.store.paging)."""

        def run(col: Any) -> list[Row]:
            return [
                Row(id=i, document=d or "", metadata=dict(m or {}))
                for i, d, m in paged_get(col, ["documents", "metadatas"], where, limit)
            ]

        return self.on_active("get rows", run)

    def get_card(self, card_id: str) -> Card | None:
        """A card of the active build, or None if it holds no such card."""
        return self.active_snapshot().card(card_id)

    def list_cards(self, limit: int | None = None) -> list[Card]:
        """Cards of the active build (up to `limit`), by id."""
        return list(self.active_snapshot().cards.values())[:limit]

    def lexical_rows(self) -> list[tuple[str, list[str]]]:
        """(row id, BM25 tokens) of every row of the active build."""
        return [(r.id, schema.tokens_from(r.metadata)) for r in self.get_rows()]
