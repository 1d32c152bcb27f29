"""Reading a collection in pages (a single huge get fails on large builds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.config import Settings
from app.store import paging
from app.store.client import make_client


def test_paged_get_reads_every_row_and_respects_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(paging, "PAGE", 7)
    client = make_client(Settings(_env_file=None, chroma_path=tmp_path / "c"))  # type: ignore[call-arg]
    col = client.create_collection("paging-test", embedding_function=None)
    col.add(
        ids=[f"r{i:02d}" for i in range(20)],
        embeddings=[[float(i), 1.0] for i in range(20)],
        metadatas=[{"n": i} for i in range(20)],
    )
    rows = paging.paged_get(col, ["metadatas"])
    assert sorted(r[0] for r in rows) == [f"r{i:02d}" for i in range(20)]
    assert len(paging.paged_get(col, ["metadatas"], limit=10)) == 10
    assert len(paging.paged_get(col, ["metadatas"], where={"n": {"$gte": 15}})) == 5
