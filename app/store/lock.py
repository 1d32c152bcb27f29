"""The ingest lock: one ingest at a time per store.

`{prefix}-ingest-lock` exists while an ingest runs (creation is atomic in Chroma). Its
metadata names the owner (host:pid) and when it started and last sent a heartbeat; a
lock silent for longer than INGEST_LOCK_TTL_S is stale and taken over.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from typing import Any

from app.core.errors import IngestLockedError
from app.store.calls import ChromaCalls

log = logging.getLogger(__name__)


class IngestLock:
    """Takes, refreshes and releases the ingest lock of one store."""

    def __init__(self, calls: ChromaCalls, prefix: str):
        self._calls = calls
        self.name = f"{prefix}-ingest-lock"  # the lock's collection

    def acquire(self, break_lock: bool = False) -> None:
        """Take the lock, breaking it if `break_lock` or if its owner fell silent;
        IngestLockedError while another live ingest holds it."""
        from chromadb.errors import ChromaError

        ttl_s = self._calls.settings.ingest_lock_ttl_s
        owner = f"{socket.gethostname()}:{os.getpid()}"
        meta = {"owner": owner, "started_at": time.time(), "heartbeat_at": time.time()}
        for _ in range(2):
            try:
                self._calls.call(
                    "take ingest lock",
                    lambda c: c.create_collection(
                        self.name, metadata=meta, embedding_function=None
                    ),
                )
                return
            except ChromaError as exc:
                if "already exists" not in str(exc):
                    raise
            held = self._metadata()
            age = time.time() - float(held.get("started_at", 0))
            silent = time.time() - float(held.get("heartbeat_at", 0))
            if break_lock or silent > ttl_s:
                log.warning(
                    "breaking ingest lock of %s (silent for %.0f s)", held.get("owner"), silent
                )
                self._calls.delete_collection(self.name)
                continue
            raise IngestLockedError(
                f"another ingest is running (lock held by {held.get('owner', '?')} "
                f"for {age:.0f} s); "
                f"wait for it to finish. A dead ingest stops refreshing its lock, which then "
                f"expires after {ttl_s} s (INGEST_LOCK_TTL_S)."
            )
        raise IngestLockedError("could not take the ingest lock after breaking a stale one")

    def _metadata(self) -> dict[str, Any]:
        from chromadb.errors import NotFoundError

        def read(client: Any) -> dict[str, Any]:
            try:
                return dict(client.get_collection(self.name).metadata or {})
            except NotFoundError:
                return {}

        return self._calls.call("read ingest lock", read)

    def refresh(self) -> None:
        """Heartbeat: tell other ingests this lock's owner is still alive."""
        held = self._metadata()
        if held:
            held["heartbeat_at"] = time.time()
            self._calls.call(
                "refresh ingest lock",
                lambda c: c.get_collection(self.name).modify(metadata=held),
            )

    def release(self) -> None:
        self._calls.delete_collection(self.name)
