"""The builds of the index: one immutable collection per build, one row per subchunk.

A build is `{prefix}-v{schema}-{stamp}`. Ingest names it, creates it, writes its rows in
batches, reads it back to verify it and marks it ready; only then is it activated
(app.store.pointer) and the other builds dropped. The row format is app.store.schema's.
Every write goes through ChromaCalls.write_call: any refusal is a StoreWriteError.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from functools import partial
from typing import Any

from app.core.errors import IngestVerificationError
from app.store import schema
from app.store.calls import ChromaCalls
from app.store.paging import paged_get
from app.store.schema import SCHEMA_VERSION, Row

log = logging.getLogger(__name__)


def _add_rows(
    name: str, rows: Sequence[Row], vectors: Sequence[Sequence[float]], client: Any
) -> None:
    client.get_collection(name, embedding_function=None).add(
        ids=[r.id for r in rows],
        documents=[r.document for r in rows],
        metadatas=[r.metadata for r in rows],
        embeddings=list(vectors),
    )


class Builds:
    """Names, creates, writes, verifies, marks ready and lists the builds."""

    def __init__(self, calls: ChromaCalls, prefix: str):
        self._calls = calls
        self.version_prefix = f"{prefix}-v"

    def new_name(self) -> str:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
        return f"{self.version_prefix}{SCHEMA_VERSION}-{stamp}"

    def names(self) -> list[str]:
        """Every build in the store, oldest first."""
        names = self._calls.collection_names()
        return sorted(n for n in names if n.startswith(self.version_prefix))

    def create(self, name: str, metadata: dict[str, Any]) -> None:
        """An empty collection `name` (cosine space, vectors given by the caller)."""
        self._calls.write_call(
            "create collection",
            lambda c: c.create_collection(
                name,
                metadata=metadata,
                configuration={"hnsw": {"space": "cosine"}},
                embedding_function=None,
            ),
        )

    def write_rows(
        self, name: str, rows: Sequence[Row], vectors: Sequence[Sequence[float]], batch: int
    ) -> None:
        """Add rows and their vectors to build `name`, `batch` rows per call."""
        for i in range(0, len(rows), batch):
            add = partial(_add_rows, name, rows[i : i + batch], vectors[i : i + batch])
            self._calls.write_call(f"write rows to {name}", add)
            log.info("wrote %d/%d rows", min(i + batch, len(rows)), len(rows))

    def verify(self, name: str, rows: int, card_ids: set[str]) -> None:
        """Check that build `name` holds `rows` rows covering exactly `card_ids`."""

        def read(client: Any) -> tuple[int, set[str]]:
            col = client.get_collection(name, embedding_function=None)
            parents = {schema.card_id_from(m) for _, _, m in paged_get(col, ["metadatas"])}
            return int(col.count()), parents

        count, parents = self._calls.write_call(f"read back {name}", read)
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
        self._calls.write_call(
            f"mark {name} ready",
            lambda c: c.get_collection(name, embedding_function=None).modify(metadata=ready),
        )

    def max_batch_size(self) -> int:
        return int(self._calls.call("max batch size", lambda c: c.get_max_batch_size()))
