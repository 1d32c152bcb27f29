"""The banks a worker embeds at start (emergency exemplars, question bank, card sentences)
are embedded once by ingest and stored with the build (app.banks, app.store.banks): a fresh
worker reads them and embeds nothing; a changed bank is embedded again by the next ingest;
a bank missing from the store is embedded at start. Real packaged model, real embedded
Chroma (and a real Chroma server, as in the compose stack)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import yaml

from app.banks import bank_texts
from app.composition import Resources
from app.core.config import Settings
from app.core.vector_cache import cache_key
from app.embedding import get_embedder
from app.safety import emergency
from app.store.index import IndexStore
from ingest.pipeline import run_ingest
from tests.integration.conftest import ChromaServer

pytestmark = [pytest.mark.model, pytest.mark.slow]


@pytest.fixture
def settings(embedded_settings: Settings) -> Settings:
    # no disk cache: what the store does not hold is embedded, and counted
    return embedded_settings.model_copy(update={"vector_cache_dir": None})


def fresh_worker(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> tuple[Resources, list[int]]:
    """What a worker builds and warms at start, with every call to the embedder counted
    (the size of each call)."""
    embedder = get_embedder(settings)
    calls: list[int] = []
    real: Callable[[list[str]], np.ndarray] = embedder.embed

    def counted(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        return real(texts)

    with monkeypatch.context() as patch:
        patch.setattr(embedder, "embed", counted)
        resources = Resources.create(settings)
        resources.warm()
    return resources, calls


def wanted(settings: Settings, store: IndexStore) -> dict[str, list[str]]:
    return bank_texts([c.text for c in store.list_cards()])


def test_after_ingest_a_fresh_worker_embeds_nothing_and_has_the_same_vectors(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = get_embedder(settings)
    store = IndexStore(settings)
    report = run_ingest(settings, embedder, store, clean=True)
    texts = wanted(settings, store)
    assert report.banks_embedded == sum(len(t) for t in texts.values())
    assert len(store.list_banks()) == 3

    resources, calls = fresh_worker(settings, monkeypatch)
    assert calls == []
    assert resources.banks is not None
    assert resources.banks.embedded == 0
    assert resources.banks.read_from_store == report.banks_embedded
    # the stored vectors are the model's vectors of those texts, in order
    first = slice(0, 200)  # a slice of the largest bank: embedding it all again is slow
    detector = resources.agent.deps.detector.bank().vectors
    assert len(detector) == len(texts["emergency"])
    assert np.allclose(detector[first], embedder.embed(texts["emergency"][first]), atol=1e-6)
    questions = resources.agent.deps.bank.vectors
    assert np.allclose(questions[first], embedder.embed(texts["questions"][first]), atol=1e-6)
    sentences = texts["sentences"]
    assert np.allclose(resources.vectors.get(sentences), embedder.embed(sentences), atol=1e-6)
    # a second ingest of the same corpus and banks embeds nothing
    again = run_ingest(settings, embedder, store)
    assert not again.rebuilt and again.banks_embedded == 0


def test_a_changed_bank_is_embedded_again_by_the_next_ingest(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = get_embedder(settings)
    store = IndexStore(settings)
    run_ingest(settings, embedder, store, clean=True)
    before = set(store.list_banks())

    # one exemplar fewer in the emergency bank: the build is current, the bank is not
    data = tmp_path / "safety-data"
    shutil.copytree(emergency.DATA, data)
    bank = data / emergency.BANKS[0]
    groups = yaml.safe_load(bank.read_text(encoding="utf-8"))
    groups[0]["examples"] = groups[0]["examples"][1:]
    bank.write_text(yaml.safe_dump(groups, allow_unicode=True), encoding="utf-8")
    monkeypatch.setattr(emergency, "DATA", data)
    changed = run_ingest(settings, embedder, store)
    texts = wanted(settings, store)
    assert not changed.rebuilt
    assert changed.banks_embedded == len(texts["emergency"])
    after = set(store.list_banks())
    assert len(after) == 3 and len(after - before) == 1  # the old emergency bank is dropped
    assert store.bank_name(cache_key(embedder.model_id, texts["emergency"])) in after - before
    _, calls = fresh_worker(settings, monkeypatch)
    assert calls == []

    # a changed card is a new build, and its sentences a new bank; the others are kept
    card = sorted(settings.corpus_dir.glob("*.md"))[0]
    card.write_text(
        card.read_text(encoding="utf-8").rstrip() + "\n\nBeba água ao longo do dia.\n",
        encoding="utf-8",
    )
    rebuilt = run_ingest(settings, embedder, store)
    assert rebuilt.rebuilt
    assert rebuilt.banks_embedded == len(wanted(settings, store)["sentences"])
    _, calls = fresh_worker(settings, monkeypatch)
    assert calls == []


def test_a_bank_missing_from_the_store_is_embedded_at_start(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = get_embedder(settings)
    store = IndexStore(settings)
    run_ingest(settings, embedder, store, clean=True)
    questions = wanted(settings, store)["questions"]
    missing = store.bank_name(cache_key(embedder.model_id, questions))
    store.delete_collection(missing)

    resources, calls = fresh_worker(settings, monkeypatch)
    assert calls == [len(questions)]  # that bank alone, in one call
    assert resources.banks is not None and resources.banks.embedded == len(questions)
    assert np.allclose(
        resources.agent.deps.bank.vectors[:50], embedder.embed(questions[:50]), atol=1e-6
    )
    assert missing not in store.list_banks()  # a worker never writes the store
    restored = run_ingest(settings, embedder, store)
    assert not restored.rebuilt and restored.banks_embedded == len(questions)
    assert missing in store.list_banks()


@pytest.mark.server
def test_a_worker_reads_the_banks_from_a_chroma_server(
    settings: Settings, chroma_server: ChromaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compose stack's layout: ingest and the API share nothing but the server."""
    http = settings.model_copy(
        update={
            "chroma_mode": "http",
            "chroma_host": "127.0.0.1",
            "chroma_port": chroma_server.port,
        }
    )
    report = run_ingest(http, get_embedder(http), IndexStore(http), clean=True)
    assert report.banks_embedded > 5000
    resources, calls = fresh_worker(http, monkeypatch)
    assert calls == []
    assert resources.banks is not None
    assert resources.banks.read_from_store == report.banks_embedded


def test_banks_the_store_refuses_leave_the_build_serving_and_no_partial_bank(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk while the banks are written, after the switch: the new build serves,
    the ingest reports the banks as not stored (a worker embeds them at start), and no
    partial bank is left to fill the disk."""
    from app.core.errors import StoreWriteError
    from app.store.builds import Builds

    real = Builds.write_rows

    def refuse_banks(self: Builds, name: str, *args: object, **kwargs: object) -> None:
        if "-bank-" in name:
            real(self, name, *args, **kwargs)  # type: ignore[arg-type]
            raise StoreWriteError(f"the store refused to write {name}: disk full (test)")
        real(self, name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Builds, "write_rows", refuse_banks)
    embedder = get_embedder(settings)
    store = IndexStore(settings)
    report = run_ingest(settings, embedder, store, clean=True)
    assert report.rebuilt and report.banks_embedded == 0
    assert "disk full (test)" in report.banks_error
    assert "banks NOT stored" in report.summary() and "re-run the ingest" in report.summary()
    assert store.active_name() == report.collection
    assert store.list_banks() == []  # the bank cut short was removed
    assert len(store.list_cards()) == report.cards

    monkeypatch.setattr(Builds, "write_rows", real)
    again = run_ingest(settings, embedder, store)  # room again: the next ingest stores them
    assert not again.rebuilt and again.banks_error == ""
    assert again.banks_embedded > 5000 and len(store.list_banks()) == 3
