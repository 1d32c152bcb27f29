from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from app.core.config import Settings  # noqa: E402
from tests.fakes import FakeEmbedder  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CARDS = ROOT / "kb" / "cards"


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def corpus_copy(tmp_path: Path) -> Path:
    """A writable copy of the bundled corpus."""
    target = tmp_path / "cards"
    shutil.copytree(CARDS, target)
    return target


@pytest.fixture
def embedded_settings(tmp_path: Path, corpus_copy: Path) -> Settings:
    """Settings for a fresh embedded Chroma in a temporary directory."""
    return Settings(
        _env_file=None,
        chroma_mode="embedded",
        chroma_path=tmp_path / "chroma",
        corpus_dir=corpus_copy,
    )
