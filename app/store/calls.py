"""Every Chroma call of the store, made through one shared client with bounded retries.

`ChromaCalls.call` bounds retries on transport errors, within the open deadline if any
(app.store.deadline), and turns a store that stays down into StoreUnavailableError and an
internal error of the store (full disk, read-only data, ...) into StoreWriteError;
`write_call`, for the writes of a build, turns any refusal of the store into
StoreWriteError. The few calls that concern the server or any collection rather than one
kind of collection (heartbeat, listing and dropping collections) are here too.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from app.core.config import Settings
from app.core.errors import DeadlineExceeded, StoreUnavailableError, StoreWriteError
from app.store import deadline
from app.store.client import close, describe
from app.store.client import make_client as make_client  # bench/floor.py counts its calls

T = TypeVar("T")


def _transport_errors() -> tuple[type[BaseException], ...]:
    import httpx

    return (httpx.TransportError, ConnectionError, TimeoutError)


class ChromaCalls:
    """Runs functions of the Chroma client, fn(client). Safe to share between threads."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._client: Any = None
        self._lock = threading.Lock()
        self._on_transport_error: list[Callable[[], None]] = []

    def on_transport_error(self, hook: Callable[[], None]) -> None:
        """Call `hook()` after each attempt that failed on a transport error or the
        deadline (a cached view of the store may be stale then)."""
        self._on_transport_error.append(hook)

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

    def call(self, what: str, fn: Callable[[Any], T]) -> T:
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

    def write_call(self, what: str, fn: Callable[[Any], T]) -> T:
        """`call` for the writes of a build: any refusal of the store is a StoreWriteError."""
        from chromadb.errors import ChromaError

        try:
            return self.call(what, fn)
        except ChromaError as exc:
            raise StoreWriteError(
                f"{describe(self.settings)} refused to {what}: {exc}. When the message does "
                "not say why, check the free disk space and the write permissions of the "
                "Chroma data directory"
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
                for hook in self._on_transport_error:
                    hook()
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

    # -- calls about the server or any collection -------------------------------------

    def heartbeat(self) -> None:
        self.call("heartbeat", lambda c: c.heartbeat())

    def collection_names(self) -> list[str]:
        return self.call("list collections", lambda c: [col.name for col in c.list_collections()])

    def delete_collection(self, name: str) -> None:
        """Drop collection `name`; one that does not exist is not an error."""
        from chromadb.errors import NotFoundError

        def delete(client: Any) -> None:
            try:
                client.delete_collection(name)
            except NotFoundError:
                pass

        self.call(f"delete {name}", delete)
