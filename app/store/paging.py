"""Reading a collection in pages: one huge get exceeds SQLite's limit on query variables
in the Chroma server at a few tens of thousands of rows."""

from __future__ import annotations

from typing import Any

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
