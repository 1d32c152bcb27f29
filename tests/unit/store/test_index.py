"""The operations ingest and the routes use, against a real embedded Chroma."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.errors import IndexNotReadyError, IngestVerificationError, StoreWriteError
from app.store import schema
from app.store.index import IndexStore
from ingest.corpus import load_corpus
from ingest.pipeline import build_rows
from tests.conftest import CARDS
from tests.fakes import FakeEmbedder


@pytest.fixture
def store(tmp_path: Path) -> IndexStore:
    return IndexStore(Settings(_env_file=None, chroma_path=tmp_path / "c"))  # type: ignore[call-arg]


def write_build(store: IndexStore, rows: list[schema.Row]) -> tuple[str, dict]:
    name = store.new_version_name()
    meta = schema.new_build({"purpose": "test"}, "2026-11-30", cards=38, chunks=len(rows))
    store.create_version(name, meta)
    vectors = FakeEmbedder().embed([r.document for r in rows]).tolist()
    store.write_rows(name, rows, vectors, batch=50)  # several batches
    return name, meta


def test_write_verify_switch_then_read_cards(store: IndexStore) -> None:
    corpus = load_corpus(CARDS)
    rows = build_rows(corpus, store.settings)
    name, meta = write_build(store, rows)
    store.verify_build(name, len(rows), set(corpus.ids))
    with pytest.raises(IndexNotReadyError):
        store.get_card("card-001")  # nothing active yet
    store.mark_ready(name, meta)
    store.activate(name)

    active, active_meta = store.active_build()
    assert active == name and schema.differences(active_meta, {}) == []
    card = store.get_card("card-017")
    original = next(c for c in corpus.cards if c.id == "card-017")
    assert card is not None and card.text == original.text and card.title == original.title
    assert store.get_card("card-999") is None
    assert [c.id for c in store.list_cards()] == corpus.ids
    assert len(store.list_cards(limit=5)) == 5
    assert sorted({i.split("::")[0] for i, _ in store.lexical_rows()}) == corpus.ids


def test_verification_names_what_is_missing(store: IndexStore) -> None:
    corpus = load_corpus(CARDS)
    rows = build_rows(corpus, store.settings)
    partial = [r for r in rows if not r.id.startswith("card-038::")]
    name, _ = write_build(store, partial)
    with pytest.raises(IngestVerificationError, match=f"holds {len(partial)} rows, expected"):
        store.verify_build(name, len(rows), set(corpus.ids))
    with pytest.raises(IngestVerificationError, match=r"missing \['card-038'\]"):
        store.verify_build(name, len(partial), set(corpus.ids))


def test_a_refused_write_is_a_store_write_error(store: IndexStore) -> None:
    rows = build_rows(load_corpus(CARDS), store.settings)[:3]
    with pytest.raises(StoreWriteError, match="refused to write rows to cards-v-missing"):
        store.write_rows("cards-v-missing", rows, [[1.0, 0.0]] * 3, batch=10)


def test_a_build_dropped_mid_read_is_read_again_from_the_new_one(store: IndexStore) -> None:
    """`ingest --clean` drops the old build right after switching; a worker still holding
    it can get the Chroma server's mid-deletion error (not NotFoundError). It reads again
    from the build the pointer now names; with the pointer unmoved, the error stands."""
    from chromadb.errors import ChromaError

    rows = build_rows(load_corpus(CARDS), store.settings)[:5]
    old, meta = write_build(store, rows)
    store.mark_ready(old, meta)
    store.activate(old)
    assert store.active_collection().name == old  # cached for POINTER_TTL_S

    def read(col: object) -> str:
        if col.name == old:  # type: ignore[attr-defined]
            raise ChromaError("Error getting collection: Missing field: [Missing metadata segment]")
        return str(col.name)  # type: ignore[attr-defined]

    with pytest.raises(ChromaError, match="Missing metadata segment"):
        store.reads.on_active("query", read)  # the pointer has not moved: a real error

    ingest = IndexStore(store.settings)  # another process switches the build
    new, meta = write_build(ingest, rows)
    ingest.mark_ready(new, meta)
    ingest.activate(new)
    store.active_collection()  # still the cached old build
    assert store.reads.on_active("query", read) == new
