"""The example questions of card sentences belong to the build: ingest embeds them and
stores them with it, a worker reads them back instead of embedding them again, and a
changed set of questions is a new build. Real packaged model, real embedded Chroma."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from app.agent import examples as examples_module
from app.agent.examples import ExamplesCache, read_examples
from app.core.config import Settings
from app.embedding import get_embedder
from app.store.index import IndexStore
from ingest.pipeline import run_ingest

pytestmark = [pytest.mark.model, pytest.mark.slow]


def never(texts: list[str]) -> np.ndarray:
    raise AssertionError(f"a worker embedded {len(texts)} example questions again")


def test_examples_are_stored_with_the_build_and_a_changed_set_is_a_new_build(
    embedded_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = get_embedder(embedded_settings)
    store = IndexStore(embedded_settings)
    first = run_ingest(embedded_settings, embedder, store, clean=True)
    snapshot = store.active_snapshot()
    expected = read_examples({c.id: c.text for c in snapshot.cards.values()})
    assert len(expected) > 1000
    bank = ExamplesCache(store, never).get()
    assert len(bank) == len(expected)
    assert {s for e in bank.examples for s in e.sentences} == {
        s for e in expected for s in e.sentences
    }
    # the stored vector is the model's vector of that question
    own = embedder.embed([expected[0].text])[0]
    assert bank.examples[0].sentences == expected[0].sentences
    assert float(bank.vectors[0] @ own) > 0.999
    assert not run_ingest(embedded_settings, embedder, store).rebuilt

    fewer = tmp_path / "questions"
    shutil.copytree(examples_module.EXAMPLES_DIR, fewer)
    dropped = sorted(fewer.glob("*.yaml"))[0]
    dropped.unlink()
    monkeypatch.setattr(examples_module, "EXAMPLES_DIR", fewer)
    second = run_ingest(embedded_settings, embedder, store)
    assert second.rebuilt and second.collection != first.collection
    assert store.list_example_sets() == [store.examples_name(second.collection)]
    authors = {e.author for e in ExamplesCache(store, never).get().examples}
    assert dropped.stem not in authors and authors
