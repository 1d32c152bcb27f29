"""A build switched to by `ingest --clean` is warmed in the background (snapshot, card
lexicon, sentence embeddings) without any request: the first patient after a switch does
not pay for loading it within the request deadline. Real model, real embedded Chroma."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from app.composition import Resources
from app.core.config import Settings
from app.store.index import IndexStore
from ingest.pipeline import run_ingest

pytestmark = [pytest.mark.model, pytest.mark.slow]


def test_a_switched_build_is_warmed_without_a_request(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, chroma_path=tmp_path / "chroma")
    resources = Resources.create(settings)
    run_ingest(settings, resources.embedder, IndexStore(settings), clean=True)
    resources.warm()
    first = resources.store.loaded_build
    assert first is not None
    resources.watch_builds(interval_s=0.2)
    try:
        run_ingest(settings, resources.embedder, IndexStore(settings), clean=True)
        new = IndexStore(settings).active_name()
        assert new is not None and new != first
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and resources.store.loaded_build != new:
            time.sleep(0.1)
        assert resources.store.loaded_build == new
        lexicon = resources.agent.deps.lexicon
        while time.monotonic() < deadline and lexicon.built_for != new:
            time.sleep(0.1)
        assert lexicon.built_for == new
    finally:
        resources.stop_watching()
