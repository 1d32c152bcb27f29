"""The versioned subchunk index on top of Chroma.

Layout of collections (all names start with COLLECTION_PREFIX):
- `{prefix}-v{schema}-{stamp}`: one immutable build of the index (one row per subchunk).
- `{prefix}-active`: a pointer; its metadata names the build being served. Switching
  builds is one metadata write, so readers see the old build or the new one, never a mix.
- `{prefix}-ingest-lock`: exists while an ingest runs (creation is atomic in Chroma).

Every call goes through `_call`, which bounds retries on transport errors and turns a
store that stays down into StoreUnavailableError; writes of a build also turn any refusal
of the store into StoreWriteError. Nothing outside this package touches a Chroma client
or collection: ingest and the routes use the operations below. The row format is
app.store.schema's.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any, TypeVar

from app.core.cards import Card
from app.core.config import Settings
from app.core.errors import (
    DeadlineExceeded,
    IndexNotReadyError,
    IngestLockedError,
    IngestVerificationError,
    StoreUnavailableError,
    StoreWriteError,
)
from app.store import deadline, schema
from app.store.client import close, describe, make_client
from app.store.schema import SCHEMA_VERSION, Row
from app.store.snapshot import BuildSnapshot

log = logging.getLogger(__name__)

T = TypeVar("T")

# How long a reader trusts its cached view of which build is active.
POINTER_TTL_S = 2.0


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


def _transport_errors() -> tuple[type[BaseException], ...]:
    import httpx

    return (httpx.TransportError, ConnectionError, TimeoutError)


PAGE = 2000


def paged_get(
    collection: Any,
    include: list[str],
    where: dict[str, Any] | None = None,
    limit: int | None = None,
) -> list[tuple[str, Any, Any]]:
    """(id, document, metadata) of a collection's rows, fetched PAGE rows at a time."""
    out: list[tuple[str, Any, Any]] = []
    offset = 0
    while limit is None or len(out) < limit:
        size = PAGE if limit is None else min(PAGE, limit - len(out))
        res = collection.get(where=where, limit=size, offset=offset, include=include)
        ids = res["ids"]
        docs = res.get("documents") or [None] * len(ids)
        metas = res.get("metadatas") or [None] * len(ids)
        out.extend(zip(ids, docs, metas, strict=True))
        if len(ids) < size:
            break
        offset += len(ids)
    return out


def _apply(fn: Callable[[Any], T], collection: Any, _client: Any) -> T:
    return fn(collection)


def _add_rows(
    name: str, rows: Sequence[Row], vectors: Sequence[Sequence[float]], client: Any
) -> None:
    client.get_collection(name, embedding_function=None).add(
        ids=[r.id for r in rows],
        documents=[r.document for r in rows],
        metadatas=[r.metadata for r in rows],
        embeddings=list(vectors),
    )


class IndexStore:
    """Access to the versioned index. Safe to share between threads."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.prefix = settings.collection_prefix
        self._client: Any = None
        self._lock = threading.Lock()
        self._active: tuple[float, Any] | None = None  # (fetched_at, Collection)
        self._snapshot: BuildSnapshot | None = None  # of the active build, loaded once
        self._snapshot_lock = threading.Lock()

    # -- plumbing -------------------------------------------------------------------

    @property
    def pointer_name(self) -> str:
        return f"{self.prefix}-active"

    @property
    def lock_name(self) -> str:
        return f"{self.prefix}-ingest-lock"

    @property
    def version_prefix(self) -> str:
        return f"{self.prefix}-v"

    def _get_client(self) -> Any:
        client = self._client
        if client is not None:
            return client
        # Built outside the lock: the constructor makes requests, and a slow or dead server
        # must not queue every other thread of the worker behind it.
        client = make_client(self.settings)
        with self._lock:
            if self._client is None:
                self._client = client
                return client
            winner = self._client
        close(client)
        return winner

    def _call(self, what: str, fn: Callable[[Any], T]) -> T:
        """Run fn(client) with bounded retries on transport errors, within the open
        deadline if any (app.store.deadline). An internal error of the store (full disk,
        read-only data, ...) becomes StoreWriteError, once."""
        from chromadb.errors import InternalError

        try:
            return self._call_with_retries(what, fn)
        except InternalError as exc:
            if "already exists" in str(exc):
                raise  # the ingest lock relies on it
            raise StoreWriteError(
                f"{describe(self.settings)} refused to {what}: {exc}. Check the free disk "
                "space and the write permissions of the Chroma data directory"
            ) from exc

    def _call_with_retries(self, what: str, fn: Callable[[Any], T]) -> T:
        """Each attempt gets min(CHROMA_TIMEOUT_S, what is left of the deadline); with no
        deadline open (ingest, CLI) it runs inline, bounded by the client's timeouts. The
        client is kept across failures: its connection pool reconnects by itself."""
        errors: tuple[type[BaseException], ...] = (*_transport_errors(), DeadlineExceeded)
        attempts = self.settings.chroma_retries + 1
        for attempt in range(1, attempts + 1):
            budget = deadline.budget(self.settings.chroma_timeout_s)
            try:
                if budget is None:
                    return fn(self._get_client())
                return deadline.run_bounded(lambda: fn(self._get_client()), budget)
            except errors as exc:
                self._active = None
                failure: BaseException = exc
            except ValueError as exc:
                # chromadb's constructor turns transport errors into ValueError ("Could
                # not connect ...", or the error's own text); the original is its context.
                if not isinstance(exc.__context__, errors) and "Could not connect" not in str(exc):
                    raise
                failure = exc
            left = deadline.remaining()
            pause = min(0.2 * attempt, 1.0)
            if attempt == attempts or (left is not None and left <= pause):
                within = "" if left is None else " within the deadline (REQUEST_DEADLINE_S)"
                raise StoreUnavailableError(
                    f"{describe(self.settings)} did not answer ({what}){within} after "
                    f"{attempt} attempt(s): {failure}"
                ) from failure
            time.sleep(pause)
        raise AssertionError("unreachable")

    def heartbeat(self) -> None:
        self._call("heartbeat", lambda c: c.heartbeat())

    # -- versions and the active pointer --------------------------------------------

    def new_version_name(self) -> str:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
        return f"{self.version_prefix}{SCHEMA_VERSION}-{stamp}"

    def list_versions(self) -> list[str]:
        names = self._call("list collections", lambda c: [col.name for col in c.list_collections()])
        return sorted(n for n in names if n.startswith(self.version_prefix))

    # -- the example questions of a build (app.agent.examples) ----------------------------

    def examples_name(self, build: str) -> str:
        """The collection that holds build `build`'s example questions."""
        return f"{self.prefix}-examples-{build.removeprefix(self.prefix + '-')}"

    def list_example_sets(self) -> list[str]:
        names = self._call("list collections", lambda c: [col.name for col in c.list_collections()])
        return sorted(n for n in names if n.startswith(f"{self.prefix}-examples-"))

    def write_examples(
        self,
        build: str,
        rows: Sequence[Row],
        vectors: Sequence[Sequence[float]],
        batch: int,
    ) -> None:
        """Write the example questions of build `build` (before it is marked ready)."""
        name = self.examples_name(build)
        self.create_version(name, {"build": build, "examples": len(rows)})
        self.write_rows(name, rows, vectors, batch)

    def examples_of(self, build: str) -> tuple[list[Row], list[list[float]]] | None:
        """The example questions stored with `build` and their vectors, or None when the
        build has none (made before they were stored with it)."""
        from chromadb.errors import NotFoundError

        def read(client: Any) -> tuple[list[Row], list[list[float]]] | None:
            try:
                col = client.get_collection(self.examples_name(build), embedding_function=None)
            except (NotFoundError, ValueError):
                return None
            rows: list[Row] = []
            vectors: list[list[float]] = []
            offset = 0
            while True:
                res = col.get(
                    limit=PAGE, offset=offset, include=["documents", "metadatas", "embeddings"]
                )
                ids = res["ids"]
                for i, d, m, e in zip(
                    ids, res["documents"], res["metadatas"], res["embeddings"], strict=True
                ):
                    rows.append(Row(id=i, document=d or "", metadata=dict(m or {})))
                    vectors.append(list(map(float, e)))
                if len(ids) < PAGE:
                    return rows, vectors
                offset += len(ids)

        return self._call(f"read the example questions of {build}", read)

    def active_name(self) -> str | None:
        from chromadb.errors import NotFoundError

        def read(client: Any) -> str | None:
            try:
                meta = client.get_collection(self.pointer_name).metadata or {}
            except NotFoundError:
                return None
            name = meta.get("collection")
            return str(name) if name else None

        return self._call("read active pointer", read)

    def active_collection(self, refresh: bool = False) -> Any:
        """The collection being served. Raises IndexNotReadyError when there is none."""
        from chromadb.errors import NotFoundError

        now = time.monotonic()
        cached = self._active
        if cached and not refresh and now - cached[0] < POINTER_TTL_S:
            return cached[1]
        name = self.active_name()
        if name is None:
            raise IndexNotReadyError(
                f"no active index in {describe(self.settings)}: run `make ingest` "
                "(or `docker compose run --rm ingest-clean`)"
            )

        def get(client: Any) -> Any:
            try:
                return client.get_collection(name, embedding_function=None)
            except NotFoundError as exc:
                raise IndexNotReadyError(
                    f"the active pointer names {name!r}, which does not exist: "
                    "run `make ingest-clean`"
                ) from exc

        collection = self._call("open active collection", get)
        self._active = (now, collection)
        return collection

    def active_metadata(self) -> dict[str, Any]:
        return dict(self.active_collection().metadata or {})

    def active_build(self, refresh: bool = False) -> tuple[str, dict[str, Any]]:
        """(name, metadata) of the build being served, read together."""
        collection = self.active_collection(refresh=refresh)
        return str(collection.name), dict(collection.metadata or {})

    def activate(self, name: str) -> None:
        """Point the service at `name` in one metadata write."""
        meta = {"collection": name, "activated_at": datetime.now(UTC).isoformat()}

        def switch(client: Any) -> None:
            pointer = client.get_or_create_collection(self.pointer_name, embedding_function=None)
            pointer.modify(metadata=meta)

        self._write_call("switch active pointer", switch)
        self._active = None

    def create_version(self, name: str, metadata: dict[str, Any]) -> None:
        self._write_call(
            "create collection",
            lambda c: c.create_collection(
                name,
                metadata=metadata,
                configuration={"hnsw": {"space": "cosine"}},
                embedding_function=None,
            ),
        )

    def delete_collection(self, name: str) -> None:
        from chromadb.errors import NotFoundError

        def delete(client: Any) -> None:
            try:
                client.delete_collection(name)
            except NotFoundError:
                pass

        self._call(f"delete {name}", delete)

    # -- writing a build (ingest) ---------------------------------------------------

    def _write_call(self, what: str, fn: Callable[[Any], T]) -> T:
        """_call for the writes of a build: any refusal of the store is a StoreWriteError."""
        from chromadb.errors import ChromaError

        try:
            return self._call(what, fn)
        except ChromaError as exc:
            raise StoreWriteError(
                f"{describe(self.settings)} refused to {what}: {exc}. When the message does "
                "not say why, check the free disk space and the write permissions of the "
                "Chroma data directory"
            ) from exc

    def write_rows(
        self, name: str, rows: Sequence[Row], vectors: Sequence[Sequence[float]], batch: int
    ) -> None:
        """Add rows and their vectors to build `name`, `batch` rows per call."""
        for i in range(0, len(rows), batch):
            add = partial(_add_rows, name, rows[i : i + batch], vectors[i : i + batch])
            self._write_call(f"write rows to {name}", add)
            log.info("wrote %d/%d rows", min(i + batch, len(rows)), len(rows))

    def verify_build(self, name: str, rows: int, card_ids: set[str]) -> None:
        """Check that build `name` holds `rows` rows covering exactly `card_ids`."""

        def read(client: Any) -> tuple[int, set[str]]:
            col = client.get_collection(name, embedding_function=None)
            parents = {schema.card_id_from(m) for _, _, m in paged_get(col, ["metadatas"])}
            return int(col.count()), parents

        count, parents = self._write_call(f"read back {name}", read)
        if count != rows:
            raise IngestVerificationError(f"new build holds {count} rows, expected {rows}")
        if parents != card_ids:
            missing = sorted(card_ids - parents)[:5]
            raise IngestVerificationError(
                f"new build holds {len(parents)} parents, expected {len(card_ids)} "
                f"(missing {missing})"
            )

    def mark_ready(self, name: str, metadata: dict[str, Any]) -> None:
        """Record that build `name` is complete and verified (servable once active)."""
        ready = schema.ready(metadata)
        self._write_call(
            f"mark {name} ready",
            lambda c: c.get_collection(name, embedding_function=None).modify(metadata=ready),
        )

    def max_batch_size(self) -> int:
        return int(self._call("max batch size", lambda c: c.get_max_batch_size()))

    # -- ingest lock ----------------------------------------------------------------

    def acquire_ingest_lock(self, break_lock: bool = False) -> None:
        from chromadb.errors import ChromaError

        owner = f"{socket.gethostname()}:{os.getpid()}"
        meta = {"owner": owner, "started_at": time.time(), "heartbeat_at": time.time()}
        for _ in range(2):
            try:
                self._call(
                    "take ingest lock",
                    lambda c: c.create_collection(
                        self.lock_name, metadata=meta, embedding_function=None
                    ),
                )
                return
            except ChromaError as exc:
                if "already exists" not in str(exc):
                    raise
            held = self._lock_metadata()
            age = time.time() - float(held.get("started_at", 0))
            silent = time.time() - float(held.get("heartbeat_at", 0))
            if break_lock or silent > self.settings.ingest_lock_ttl_s:
                log.warning(
                    "breaking ingest lock of %s (silent for %.0f s)", held.get("owner"), silent
                )
                self.delete_collection(self.lock_name)
                continue
            raise IngestLockedError(
                f"another ingest is running (lock held by {held.get('owner', '?')} "
                f"for {age:.0f} s); "
                f"wait for it to finish. A dead ingest stops refreshing its lock, which then "
                f"expires after {self.settings.ingest_lock_ttl_s} s (INGEST_LOCK_TTL_S)."
            )
        raise IngestLockedError("could not take the ingest lock after breaking a stale one")

    def _lock_metadata(self) -> dict[str, Any]:
        from chromadb.errors import NotFoundError

        def read(client: Any) -> dict[str, Any]:
            try:
                return dict(client.get_collection(self.lock_name).metadata or {})
            except NotFoundError:
                return {}

        return self._call("read ingest lock", read)

    def refresh_ingest_lock(self) -> None:
        """Heartbeat: tell other ingests this lock's owner is still alive."""
        held = self._lock_metadata()
        if held:
            held["heartbeat_at"] = time.time()
            self._call(
                "refresh ingest lock",
                lambda c: c.get_collection(self.lock_name).modify(metadata=held),
            )

    def release_ingest_lock(self) -> None:
        self.delete_collection(self.lock_name)

    # -- reads for serving ----------------------------------------------------------

    def _with_active(self, what: str, fn: Callable[[Any], T]) -> T:
        """Run fn(active collection); re-resolve once if the build was switched meanwhile.

        `ingest --clean` drops the old build as soon as it has switched, while this process
        may still hold it (the pointer is cached POINTER_TTL_S). Reading a build being
        dropped fails with NotFoundError, or, caught mid-deletion by the Chroma server, with
        another store error ("Missing metadata segment"): either way, when the pointer
        now names another build, the call is made again on it."""
        from chromadb.errors import ChromaError, NotFoundError

        for attempt in (1, 2):
            collection = self.active_collection(refresh=attempt == 2)
            try:
                return self._call(what, partial(_apply, fn, collection))
            except NotFoundError as exc:
                if attempt == 2:
                    raise IndexNotReadyError(
                        f"the active index disappeared during {what}: run `make ingest`"
                    ) from exc
            except (ChromaError, StoreWriteError):
                if attempt == 2 or self.active_name() == collection.name:
                    raise
            log.info("active build changed during %s; re-resolving", what)
        raise AssertionError("unreachable")

    def count(self) -> int:
        return int(self._with_active("count", lambda col: col.count()))

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
        return self._with_active("load the active build", self._snapshot_of)

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

        return self._with_active("query", run)

    def vectors(self, ids: list[str]) -> dict[str, list[float]]:
        """Stored vectors of rows found by another ranking (BM25), by row id."""

        def run(col: Any) -> dict[str, list[float]]:
            res = col.get(ids=ids, include=["embeddings"])
            return {
                i: list(map(float, e)) for i, e in zip(res["ids"], res["embeddings"], strict=True)
            }

        return self._with_active("get vectors by id", run)

    def get_rows(self, where: dict[str, Any] | None = None, limit: int | None = None) -> list[Row]:
        """Rows of the active build, read in pages (one huge get exceeds SQLite's limit on
        query variables in the Chroma server at a few tens of thousands of rows)."""

        def run(col: Any) -> list[Row]:
            return [
                Row(id=i, document=d or "", metadata=dict(m or {}))
                for i, d, m in paged_get(col, ["documents", "metadatas"], where, limit)
            ]

        return self._with_active("get rows", run)

    def get_card(self, card_id: str) -> Card | None:
        """A card of the active build, or None if it holds no such card."""
        return self.active_snapshot().card(card_id)

    def list_cards(self, limit: int | None = None) -> list[Card]:
        """Cards of the active build (up to `limit`), by id."""
        return list(self.active_snapshot().cards.values())[:limit]

    def lexical_rows(self) -> list[tuple[str, list[str]]]:
        """(row id, BM25 tokens) of every row of the active build."""
        return [(r.id, schema.tokens_from(r.metadata)) for r in self.get_rows()]
