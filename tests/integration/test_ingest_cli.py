"""`python -m ingest` end to end: real packaged model, real embedded Chroma."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from app.core.config import Settings
from app.embedding import get_embedder
from app.retrieval.retriever import Retriever
from app.store.index import IndexStore
from tests.service import ingest, service_env

pytestmark = [pytest.mark.model, pytest.mark.slow]


def run_ingest_cli(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    env = service_env(settings.chroma_path, CORPUS_DIR=str(settings.corpus_dir), LOG_LEVEL="INFO")
    return ingest(env, *args)


def top_ids(settings: Settings, question: str) -> list[str]:
    retriever = Retriever(IndexStore(settings), get_embedder(settings), settings)
    return [c.id for c in retriever.search(question).candidates]


def _corrupt(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_ingest_clean_summary_query_and_safe_failure(embedded_settings: Settings) -> None:
    done = run_ingest_cli(embedded_settings, "--clean")
    assert done.returncode == 0, done.stderr
    assert re.search(
        r"ingest: 38 cards, \d+ chunks, [\d.]+ s .*collection cards-v\d+-\S+ \(active\)",
        done.stdout,
    ), done.stdout
    assert "embedded" in done.stderr and "chunks/s" in done.stderr  # progress lines

    first = top_ids(embedded_settings, "devo tomar com o estômago vazio?")
    assert first[0] in {"card-001", "card-019"}, first
    active = IndexStore(embedded_settings).active_name()

    cards = embedded_settings.corpus_dir
    _corrupt(cards / "card-002.md", "id: card-002", "id: card-2")
    _corrupt(cards / "card-012.md", "title:", "# title:")
    body_start = (cards / "card-030.md").read_text(encoding="utf-8").split("\n---\n", 1)[0]
    (cards / "card-030.md").write_text(body_start + "\n---\n\n", encoding="utf-8")

    failed = run_ingest_cli(embedded_settings, "--clean")
    assert failed.returncode == 2
    assert "card-002.md: id:" in failed.stderr
    assert "card-012.md: title: Field required" in failed.stderr
    assert "card-030.md: body:" in failed.stderr
    assert "nothing was ingested" in failed.stderr

    assert IndexStore(embedded_settings).active_name() == active
    assert top_ids(embedded_settings, "devo tomar com o estômago vazio?") == first


def test_check_validates_without_a_store(embedded_settings: Settings) -> None:
    done = run_ingest_cli(embedded_settings, "--check")
    assert done.returncode == 0 and "corpus valid: 38 cards" in done.stdout
    assert not embedded_settings.chroma_path.exists()
