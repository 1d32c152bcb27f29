"""The example questions of a build (app.agent.examples), stored with it.

Build `{prefix}-{rest}` has its example questions in `{prefix}-examples-{rest}`, written
like a build (app.store.builds) before the build is marked ready.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.store import paging
from app.store.builds import Builds
from app.store.calls import ChromaCalls
from app.store.schema import Row


class ExampleSets:
    """Names, writes, lists and reads the example-question sets of the builds."""

    def __init__(self, calls: ChromaCalls, builds: Builds, prefix: str):
        self._calls = calls
        self._builds = builds
        self._prefix = prefix

    def name_for(self, build: str) -> str:
        """The collection that holds build `build`'s example questions."""
        return f"{self._prefix}-examples-{build.removeprefix(self._prefix + '-')}"

    def names(self) -> list[str]:
        names = self._calls.collection_names()
        return sorted(n for n in names if n.startswith(f"{self._prefix}-examples-"))

    def write(
        self,
        build: str,
        rows: Sequence[Row],
        vectors: Sequence[Sequence[float]],
        batch: int,
    ) -> None:
        """Write the example questions of build `build` (before it is marked ready)."""
        name = self.name_for(build)
        self._builds.create(name, {"build": build, "examples": len(rows)})
        self._builds.write_rows(name, rows, vectors, batch)

    def read(self, build: str) -> tuple[list[Row], list[list[float]]] | None:
        """The example questions stored with `build` and their vectors, or None when the
        build has none (made before they were stored with it)."""
        from chromadb.errors import NotFoundError

        def read(client: Any) -> tuple[list[Row], list[list[float]]] | None:
            try:
                col = client.get_collection(self.name_for(build), embedding_function=None)
            except (NotFoundError, ValueError):
                return None
            rows: list[Row] = []
            vectors: list[list[float]] = []
            offset = 0
            while True:
                res = col.get(
                    limit=paging.PAGE,
                    offset=offset,
                    include=["documents", "metadatas", "embeddings"],
                )
                ids = res["ids"]
                for i, d, m, e in zip(
                    ids, res["documents"], res["metadatas"], res["embeddings"], strict=True
                ):
                    rows.append(Row(id=i, document=d or "", metadata=dict(m or {})))
                    vectors.append(list(map(float, e)))
                if len(ids) < paging.PAGE:
                    return rows, vectors
                offset += len(ids)

        return self._calls.call(f"read the example questions of {build}", read)
