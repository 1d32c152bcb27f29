"""The active build's snapshot: cards and subchunks read once per build, queries that
read only ids and distances, and a build switch picked up without a restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.core.config import Settings
from app.core.errors import IndexNotReadyError
from app.retrieval.retriever import Retriever
from app.store.index import IndexStore
from app.store.snapshot import BuildSnapshot
from ingest.corpus import load_corpus
from ingest.pipeline import run_ingest
from tests.fakes import FakeEmbedder
from tests.polling import wait_until


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the builds whose snapshot was loaded, in order."""
    seen: list[str] = []
    original = BuildSnapshot.from_rows

    def counting(name: str, *args: Any) -> Any:
        seen.append(name)
        return original(name, *args)

    monkeypatch.setattr(BuildSnapshot, "from_rows", staticmethod(counting))
    return seen


def test_queries_read_ids_and_distances_only(
    embedded_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chromadb.api.models.Collection import Collection

    embedder = FakeEmbedder()
    run_ingest(embedded_settings, embedder, IndexStore(embedded_settings))
    includes: list[list[str]] = []
    original = Collection.query

    def spy(self: Any, *args: Any, **kwargs: Any) -> Any:
        includes.append(list(kwargs.get("include", [])))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Collection, "query", spy)
    result = Retriever(IndexStore(embedded_settings), embedder, embedded_settings).search(
        "insulina geladeira"
    )
    assert includes and all(inc == ["distances"] for inc in includes)
    card = load_corpus(embedded_settings.corpus_dir).cards[5]  # card-006, insulin storage
    top = next(c for c in result.candidates if c.id == card.id)
    assert top.text == card.text and top.title == card.title
    assert top.matched and top.matched.text  # the subchunk text, from the snapshot


def test_snapshot_loads_once_per_build_and_follows_a_switch(
    embedded_settings: Settings, corpus_copy: Path, loads: list[str]
) -> None:
    embedder = FakeEmbedder()
    first = run_ingest(embedded_settings, embedder, IndexStore(embedded_settings))
    store = IndexStore(embedded_settings)
    retriever = Retriever(store, embedder, embedded_settings)
    for question in ("insulina", "pressão alta", "levotiroxina em jejum"):
        retriever.search(question)
    assert store.get_card("card-001") is not None and len(store.list_cards()) == 38
    assert loads == [first.collection]

    path = corpus_copy / "card-005.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nFrase nova: zabumba.\n", "utf-8")
    second = run_ingest(embedded_settings, embedder, IndexStore(embedded_settings), clean=True)

    def new_text() -> bool:
        card = store.get_card("card-005")
        return card is not None and card.text.endswith("Frase nova: zabumba.")

    wait_until(new_text, timeout=10)  # the same store object, no restart
    retriever.search("zabumba")
    assert loads == [first.collection, second.collection]
    assert store.loaded_build == second.collection


def test_a_switch_to_a_build_made_differently_is_refused(
    embedded_settings: Settings, fake_embedder: FakeEmbedder
) -> None:
    run_ingest(embedded_settings, fake_embedder, IndexStore(embedded_settings))
    retriever = Retriever(IndexStore(embedded_settings), fake_embedder, embedded_settings)
    assert retriever.search("insulina").candidates
    other = embedded_settings.model_copy(update={"chunk_size": 300})
    run_ingest(other, fake_embedder, IndexStore(other), clean=True)

    def refused() -> bool:
        try:
            retriever.search("insulina")
        except IndexNotReadyError as exc:
            return "chunk_size: index has 300" in str(exc)
        return False

    wait_until(refused, timeout=10)
