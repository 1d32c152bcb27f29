"""The same store code path over HTTP, against a real Chroma server process."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.errors import StoreUnavailableError
from app.retrieval.retriever import Retriever
from app.store.index import IndexStore
from ingest.pipeline import IngestReport, run_ingest
from tests.fakes import FakeEmbedder
from tests.integration.conftest import ChromaServer

pytestmark = [pytest.mark.server]


def http_settings(server: ChromaServer, corpus: Path, timeout_s: float = 2) -> Settings:
    """A 2 s timeout for the queries, so an outage is seen quickly; the ingest gets an
    ingest's (Settings.for_ingest, CHROMA_INGEST_TIMEOUT_S): one of its writes adds 5,000
    rows, which took more than 2 s on a busy CI host (a rehearsal failed on it)."""
    return Settings(
        _env_file=None,
        chroma_mode="http",
        chroma_host="127.0.0.1",
        chroma_port=server.port,
        corpus_dir=corpus,
        chroma_timeout_s=timeout_s,
        chroma_retries=1,
    )


def ingest(server: ChromaServer, corpus: Path) -> IngestReport:
    settings = http_settings(server, corpus).for_ingest()
    return run_ingest(settings, FakeEmbedder(), IndexStore(settings), clean=True)


def test_ingest_and_query_over_http(chroma_server: ChromaServer, corpus_copy: Path) -> None:
    report = ingest(chroma_server, corpus_copy)
    settings = http_settings(chroma_server, corpus_copy)
    embedder = FakeEmbedder()
    store = IndexStore(settings)
    assert store.count() == report.chunks
    result = Retriever(store, embedder, settings).search("insulina geladeira rodízio")
    assert "card-006" in [c.id for c in result.candidates]


def test_store_down_is_reported_then_recovers(
    chroma_server: ChromaServer, corpus_copy: Path
) -> None:
    ingest(chroma_server, corpus_copy)
    settings = http_settings(chroma_server, corpus_copy)
    embedder = FakeEmbedder()
    store = IndexStore(settings)
    retriever = Retriever(store, embedder, settings)
    assert retriever.search("pressão arterial").candidates

    chroma_server.stop()
    started = time.monotonic()
    with pytest.raises(StoreUnavailableError, match="did not answer|unreachable"):
        retriever.search("pressão arterial")
    assert time.monotonic() - started < 15

    chroma_server.start()
    assert retriever.search("pressão arterial").candidates  # same objects, no restart
