"""BM25 tokenization, RRF fusion, and hybrid retrieval over a real embedded Chroma."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.text import tokenize
from app.retrieval.fusion import rrf
from app.retrieval.retriever import Retriever
from app.store.index import IndexStore
from ingest.pipeline import run_ingest
from tests.fakes import FakeEmbedder
from tests.polling import wait_until


def test_tokenizer_folds_accents_drops_stopwords_and_stems() -> None:
    assert tokenize("Devo tomar a levotiroxina com o estômago vazio?") == [
        "dev",
        "tom",
        "levotiroxin",
        "estomag",
        "vazi",
    ]
    assert tokenize("INSULINAS na geladeira") == tokenize("insulina na Geladeira")


def test_rrf_rewards_agreement_and_respects_weights() -> None:
    fused = rrf([["a", "b", "c"], ["c", "a", "d"]], [1.0, 1.0], k=60)
    assert list(fused)[:2] == ["a", "c"]
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 62)
    only_first = rrf([["a", "b"], ["b", "a"]], [1.0, 0.0], k=60)
    assert list(only_first) == ["a", "b"]
    with pytest.raises(ValueError):
        rrf([["a"]], [1.0, 2.0])


@pytest.fixture
def hybrid(embedded_settings: Settings) -> Settings:
    return embedded_settings.model_copy(update={"retrieval_mode": "hybrid", "min_similarity": 0.0})


def test_hybrid_finds_a_lexical_match_and_keeps_cosine_for_the_gate(hybrid: Settings) -> None:
    embedder = FakeEmbedder()
    run_ingest(hybrid, embedder, IndexStore(hybrid), clean=True)
    retriever = Retriever(IndexStore(hybrid), embedder, hybrid)
    result = retriever.search("hidroclorotiazida", top_k=4)
    assert result.candidates[0].id == "card-011"
    assert {"bm25", "fusion"} <= set(result.timings_ms)
    top = result.candidates[0]
    assert -1.0 <= top.score <= 1.0  # cosine, not the fused rank score
    assert 0 < top.rank_score < 1
    gated = hybrid.model_copy(update={"min_similarity": 0.99})
    assert Retriever(IndexStore(gated), embedder, gated).search("hidroclorotiazida").parents == []


def test_bm25_index_follows_the_active_build(hybrid: Settings, corpus_copy: Path) -> None:
    embedder = FakeEmbedder()
    run_ingest(hybrid, embedder, IndexStore(hybrid), clean=True)
    bm25_only = hybrid.model_copy(update={"retrieval_mode": "bm25"})
    retriever = Retriever(IndexStore(bm25_only), embedder, bm25_only)
    assert "card-005" not in [c.id for c in retriever.search("zabumbaxique").candidates]

    path = corpus_copy / "card-005.md"
    path.write_text(
        path.read_text(encoding="utf-8") + "\nPalavra rara: zabumbaxique.\n", encoding="utf-8"
    )
    run_ingest(hybrid, embedder, IndexStore(hybrid), clean=True)

    # Same retriever object: the new build's BM25 index is picked up without a restart
    # (once its cached view of the active pointer expires).
    def top() -> str | None:
        candidates = retriever.search("zabumbaxique").candidates
        return candidates[0].id if candidates else None

    wait_until(lambda: top() == "card-005", timeout=10, interval=0.1, what="card-005 on top")
