"""The active pointer: which build of the index is served.

`{prefix}-active` is a collection whose metadata names the build being served. Switching
builds is one metadata write, so readers see the old build or the new one, never a mix.
A process trusts its cached view of the pointer for POINTER_TTL_S, and drops it after a
switch it made or a transport error.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from app.core.errors import IndexNotReadyError
from app.store.calls import ChromaCalls
from app.store.client import describe

# How long a reader trusts its cached view of which build is active.
POINTER_TTL_S = 2.0


class ActivePointer:
    """Reads and switches the active pointer. Safe to share between threads."""

    def __init__(self, calls: ChromaCalls, prefix: str):
        self._calls = calls
        self.name = f"{prefix}-active"  # the pointer's own collection
        self._cached: tuple[float, Any] | None = None  # (fetched_at, Collection)

    def forget(self) -> None:
        """Drop the cached view: the next read asks the store."""
        self._cached = None

    def target(self) -> str | None:
        """The name of the build the pointer names, read from the store (None: no pointer)."""
        from chromadb.errors import NotFoundError

        def read(client: Any) -> str | None:
            try:
                meta = client.get_collection(self.name).metadata or {}
            except NotFoundError:
                return None
            name = meta.get("collection")
            return str(name) if name else None

        return self._calls.call("read active pointer", read)

    def collection(self, refresh: bool = False) -> Any:
        """The collection being served. Raises IndexNotReadyError when there is none."""
        from chromadb.errors import NotFoundError

        now = time.monotonic()
        cached = self._cached
        if cached and not refresh and now - cached[0] < POINTER_TTL_S:
            return cached[1]
        name = self.target()
        if name is None:
            raise IndexNotReadyError(
                f"no active index in {describe(self._calls.settings)}: run `make ingest` "
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

        collection = self._calls.call("open active collection", get)
        self._cached = (now, collection)
        return collection

    def build(self, refresh: bool = False) -> tuple[str, dict[str, Any]]:
        """(name, metadata) of the build being served, read together."""
        collection = self.collection(refresh=refresh)
        return str(collection.name), dict(collection.metadata or {})

    def switch(self, name: str) -> None:
        """Point the service at `name` in one metadata write."""
        meta = {"collection": name, "activated_at": datetime.now(UTC).isoformat()}

        def switch(client: Any) -> None:
            pointer = client.get_or_create_collection(self.name, embedding_function=None)
            pointer.modify(metadata=meta)

        self._calls.write_call("switch active pointer", switch)
        self._cached = None
