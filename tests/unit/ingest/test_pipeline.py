"""Ingest against a real embedded Chroma (fake embedder: no model load)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.errors import CorpusError, IngestLockedError, IngestVerificationError
from app.retrieval.retriever import Retriever
from app.store import schema
from app.store.client import close, make_client
from app.store.index import IndexStore
from app.store.schema import SCHEMA_VERSION
from ingest import pipeline
from ingest.chunking import chunk_card
from ingest.corpus import load_corpus
from ingest.pipeline import run_ingest
from tests.fakes import FakeEmbedder


def ingest(settings: Settings, embedder: FakeEmbedder, **kw: bool) -> pipeline.IngestReport:
    return run_ingest(settings, embedder, IndexStore(settings), **kw)


def test_one_row_per_subchunk_with_parent_round_trip(
    embedded_settings: Settings, fake_embedder: FakeEmbedder
) -> None:
    report = ingest(embedded_settings, fake_embedder)
    corpus = load_corpus(embedded_settings.corpus_dir)
    expected = {
        c.id: len(
            chunk_card(
                c.title, c.text, embedded_settings.chunk_size, embedded_settings.chunk_overlap
            )
        )
        for c in corpus.cards
    }
    assert report.rebuilt and report.cards == 38 and report.chunks == sum(expected.values())

    rows = IndexStore(embedded_settings).get_rows()
    assert len(rows) == report.chunks
    per_card: dict[str, list[int]] = {}
    by_id = {c.id: c for c in corpus.cards}
    for row in rows:
        assert re.fullmatch(r"card-\d{3}::\d{2}", row.id)
        parent, index = row.id.split("::")
        assert row.metadata["parent_id"] == parent
        assert row.metadata["chunk_index"] == int(index)
        assert schema.card_from(row.metadata) == by_id[parent]
        per_card.setdefault(parent, []).append(int(index))
    assert {k: len(v) for k, v in per_card.items()} == expected
    assert all(sorted(v) == list(range(len(v))) for v in per_card.values())
    # Title prefix on chunk 0 only.
    for row in rows:
        has_title = row.document.startswith(by_id[row.metadata["parent_id"]].title + "\n\n")
        assert has_title == (row.metadata["chunk_index"] == 0)


def test_collection_records_what_built_it(
    embedded_settings: Settings, fake_embedder: FakeEmbedder
) -> None:
    ingest(embedded_settings, fake_embedder)
    meta = IndexStore(embedded_settings).active_metadata()
    assert meta["schema_version"] == SCHEMA_VERSION
    assert meta["embedding_model"] == "fake/hashed-bow"
    assert meta["embedding_dim"] == 256
    assert meta["chunk_size"] == embedded_settings.chunk_size
    assert meta["chunk_overlap"] == embedded_settings.chunk_overlap
    assert meta["corpus_hash"] == load_corpus(embedded_settings.corpus_dir).corpus_hash
    assert meta["state"] == "ready" and meta["card_count"] == 38
    assert meta["built_at"]


def test_plain_ingest_skips_a_current_index_and_clean_rebuilds(
    embedded_settings: Settings, fake_embedder: FakeEmbedder
) -> None:
    first = ingest(embedded_settings, fake_embedder)
    again = ingest(embedded_settings, fake_embedder)
    assert not again.rebuilt and again.collection == first.collection
    clean = ingest(embedded_settings, fake_embedder, clean=True)
    assert clean.rebuilt and clean.collection != first.collection
    store = IndexStore(embedded_settings)
    assert store.list_versions() == [clean.collection]
    assert store.active_name() == clean.collection


def test_changed_budget_makes_the_index_stale(
    embedded_settings: Settings, fake_embedder: FakeEmbedder
) -> None:
    first = ingest(embedded_settings, fake_embedder)
    other = Settings(**{**embedded_settings.model_dump(), "chunk_size": 300})
    second = ingest(other, fake_embedder)
    assert second.rebuilt and second.collection != first.collection
    assert IndexStore(other).active_metadata()["chunk_size"] == 300


def _corrupt(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_invalid_corpus_leaves_previous_index_serving(
    embedded_settings: Settings, fake_embedder: FakeEmbedder
) -> None:
    first = ingest(embedded_settings, fake_embedder)
    _corrupt(embedded_settings.corpus_dir / "card-004.md", "title:", "tittle:")
    with pytest.raises(CorpusError, match=r"card-004.md: title"):
        ingest(embedded_settings, fake_embedder, clean=True)
    store = IndexStore(embedded_settings)
    assert store.active_name() == first.collection
    assert store.list_versions() == [first.collection]
    result = Retriever(store, fake_embedder, embedded_settings).search("levotiroxina jejum")
    assert result.candidates


def test_failure_midway_removes_partial_build_and_keeps_active(
    embedded_settings: Settings, fake_embedder: FakeEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = ingest(embedded_settings, fake_embedder)

    def broken_verify(*_args: object) -> None:
        raise IngestVerificationError("simulated: rows missing")

    monkeypatch.setattr(pipeline, "_verify", broken_verify)
    with pytest.raises(IngestVerificationError):
        ingest(embedded_settings, fake_embedder, clean=True)
    store = IndexStore(embedded_settings)
    assert store.active_name() == first.collection
    assert store.list_versions() == [first.collection]
    assert store.count() == first.chunks
    # The lock was released: the next ingest runs.
    monkeypatch.undo()
    assert ingest(embedded_settings, fake_embedder, clean=True).rebuilt


def test_concurrent_ingest_is_refused(
    embedded_settings: Settings, fake_embedder: FakeEmbedder
) -> None:
    IndexStore(embedded_settings).acquire_ingest_lock()
    with pytest.raises(IngestLockedError, match="another ingest is running"):
        ingest(embedded_settings, fake_embedder, clean=True)


def last_heartbeat(settings: Settings, seconds_ago: float) -> None:
    """Date the ingest lock's last heartbeat `seconds_ago`, as a dead owner leaves it."""
    client = make_client(settings)
    try:
        lock = client.get_collection(IndexStore(settings).lock_name)
        held = dict(lock.metadata or {})
        assert "heartbeat_at" in held, held
        lock.modify(metadata={**held, "heartbeat_at": time.time() - seconds_ago})
    finally:
        close(client)


def test_dead_ingest_lock_expires(embedded_settings: Settings, fake_embedder: FakeEmbedder) -> None:
    # No waiting out the TTL: the lock's last heartbeat is dated in the past instead.
    ttl = embedded_settings.ingest_lock_ttl_s
    IndexStore(embedded_settings).acquire_ingest_lock()  # never refreshed: its owner "died"
    last_heartbeat(embedded_settings, seconds_ago=ttl / 2)
    with pytest.raises(IngestLockedError, match="another ingest is running"):
        ingest(embedded_settings, fake_embedder, clean=True)  # silent, but not for long
    last_heartbeat(embedded_settings, seconds_ago=ttl + 1)
    assert ingest(embedded_settings, fake_embedder, clean=True).rebuilt


def test_leftover_partial_build_is_removed_by_next_ingest(
    embedded_settings: Settings, fake_embedder: FakeEmbedder
) -> None:
    first = ingest(embedded_settings, fake_embedder)
    store = IndexStore(embedded_settings)
    store.create_version(store.new_version_name(), {"state": "building"})  # a killed ingest
    assert len(store.list_versions()) == 2
    second = ingest(embedded_settings, fake_embedder, clean=True)
    assert store.list_versions() == [second.collection] != [first.collection]
