"""The versioned subchunk index on top of Chroma: `IndexStore`, the one object ingest,
the routes and retrieval use, composing the parts below (each its own module).

Layout of collections (all names start with COLLECTION_PREFIX):
- `{prefix}-v{schema}-{stamp}`: one immutable build of the index (one row per subchunk);
  app.store.builds names, writes, verifies and marks them ready;
- `{prefix}-examples-{rest}`: the example questions stored with a build (app.store.examples);
- `{prefix}-bank-{key}`: the embeddings of a bank (emergency exemplars, question bank, card
  sentences), keyed by the model and the bank's texts (app.store.banks);
- `{prefix}-active`: a pointer; its metadata names the build being served. Switching
  builds is one metadata write, so readers see the old build or the new one, never a mix
  (app.store.pointer);
- `{prefix}-ingest-lock`: exists while an ingest runs (creation is atomic in Chroma;
  app.store.lock).

Reads of the active build for serving are app.store.reads'. Every call goes through
app.store.calls.ChromaCalls, which bounds retries on transport errors and turns a store
that stays down into StoreUnavailableError; writes of a build also turn any refusal of the
store into StoreWriteError. Nothing outside this package touches a Chroma client or
collection: ingest and the routes use the operations below. The row format is
app.store.schema's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from app.core.cards import Card
from app.core.config import Settings
from app.store.banks import BankSets
from app.store.builds import Builds
from app.store.calls import ChromaCalls
from app.store.examples import ExampleSets
from app.store.lock import IngestLock
from app.store.pointer import POINTER_TTL_S, ActivePointer
from app.store.reads import Hit, QueryResult, Reads
from app.store.schema import Row
from app.store.snapshot import BuildSnapshot

__all__ = ["POINTER_TTL_S", "Hit", "IndexStore", "QueryResult"]


class IndexStore:
    """Access to the versioned index. Safe to share between threads.

    A facade: each method hands over to one part, `calls` (every Chroma call, retried),
    `builds`, `example_sets`, `pointer` (the active build), `ingest_lock` and `reads`."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.prefix = settings.collection_prefix
        self.calls = ChromaCalls(settings)
        self.pointer = ActivePointer(self.calls, self.prefix)
        self.calls.on_transport_error(self.pointer.forget)
        self.builds = Builds(self.calls, self.prefix)
        self.example_sets = ExampleSets(self.calls, self.builds, self.prefix)
        self.bank_sets = BankSets(self.calls, self.builds, self.prefix)
        self.ingest_lock = IngestLock(self.calls, self.prefix)
        self.reads = Reads(self.calls, self.pointer)

    @property
    def pointer_name(self) -> str:
        return self.pointer.name

    @property
    def lock_name(self) -> str:
        return self.ingest_lock.name

    @property
    def version_prefix(self) -> str:
        return self.builds.version_prefix

    def heartbeat(self) -> None:
        self.calls.heartbeat()

    def delete_collection(self, name: str) -> None:
        self.calls.delete_collection(name)

    # -- builds (ingest) --------------------------------------------------------------

    def new_version_name(self) -> str:
        return self.builds.new_name()

    def list_versions(self) -> list[str]:
        return self.builds.names()

    def create_version(self, name: str, metadata: dict[str, Any]) -> None:
        self.builds.create(name, metadata)

    def write_rows(
        self, name: str, rows: Sequence[Row], vectors: Sequence[Sequence[float]], batch: int
    ) -> None:
        self.builds.write_rows(name, rows, vectors, batch)

    def verify_build(self, name: str, rows: int, card_ids: set[str]) -> None:
        self.builds.verify(name, rows, card_ids)

    def mark_ready(self, name: str, metadata: dict[str, Any]) -> None:
        self.builds.mark_ready(name, metadata)

    def max_batch_size(self) -> int:
        return self.builds.max_batch_size()

    # -- the example questions of a build (app.agent.examples) ------------------------

    def examples_name(self, build: str) -> str:
        return self.example_sets.name_for(build)

    def list_example_sets(self) -> list[str]:
        return self.example_sets.names()

    def write_examples(
        self, build: str, rows: Sequence[Row], vectors: Sequence[Sequence[float]], batch: int
    ) -> None:
        self.example_sets.write(build, rows, vectors, batch)

    def examples_of(self, build: str) -> tuple[list[Row], list[list[float]]] | None:
        return self.example_sets.read(build)

    # -- the banks' embeddings (app.store.banks) --------------------------------------

    def bank_name(self, key: str) -> str:
        return self.bank_sets.name_for(key)

    def list_banks(self) -> list[str]:
        return self.bank_sets.names()

    def has_bank(self, key: str, count: int) -> bool:
        return self.bank_sets.has(key, count)

    def write_bank(self, key: str, meta: dict[str, Any], vectors: Any, batch: int) -> None:
        self.bank_sets.write(key, meta, vectors, batch)

    def bank_vectors(self, key: str, count: int) -> Any:
        """The stored vectors of bank `key` (an ndarray of `count` rows), or None."""
        return self.bank_sets.read(key, count)

    # -- the active pointer -----------------------------------------------------------

    def active_name(self) -> str | None:
        return self.pointer.target()

    def active_collection(self, refresh: bool = False) -> Any:
        return self.pointer.collection(refresh=refresh)

    def active_metadata(self) -> dict[str, Any]:
        return dict(self.pointer.collection().metadata or {})

    def active_build(self, refresh: bool = False) -> tuple[str, dict[str, Any]]:
        return self.pointer.build(refresh=refresh)

    def activate(self, name: str) -> None:
        self.pointer.switch(name)

    # -- ingest lock ------------------------------------------------------------------

    def acquire_ingest_lock(self, break_lock: bool = False) -> None:
        self.ingest_lock.acquire(break_lock=break_lock)

    def refresh_ingest_lock(self) -> None:
        self.ingest_lock.refresh()

    def release_ingest_lock(self) -> None:
        self.ingest_lock.release()

    # -- reads for serving ------------------------------------------------------------

    @property
    def loaded_build(self) -> str | None:
        return self.reads.loaded_build

    def count(self) -> int:
        return self.reads.count()

    def active_snapshot(self) -> BuildSnapshot:
        return self.reads.active_snapshot()

    def query(
        self,
        embedding: Sequence[float],
        n_results: int,
        more: Callable[[list[Hit]], bool] | None = None,
        cap: int | None = None,
    ) -> QueryResult:
        return self.reads.query(embedding, n_results, more=more, cap=cap)

    def vectors(self, ids: list[str]) -> dict[str, list[float]]:
        return self.reads.vectors(ids)

    def get_rows(self, where: dict[str, Any] | None = None, limit: int | None = None) -> list[Row]:
        return self.reads.get_rows(where, limit)

    def get_card(self, card_id: str) -> Card | None:
        return self.reads.get_card(card_id)

    def list_cards(self, limit: int | None = None) -> list[Card]:
        return self.reads.list_cards(limit)

    def lexical_rows(self) -> list[tuple[str, list[str]]]:
        return self.reads.lexical_rows()
