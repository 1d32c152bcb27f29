"""The optional cross-encoder reranker, with a real sentence-transformers CrossEncoder.

No trained reranker can be downloaded here (no model hub), so the test builds a
cross-encoder from the packaged MiniLM weights with a fresh scoring head: the scores mean
nothing, but the code path, the candidate cap and the CPU cost are real (a MiniLM-L6
cross-encoder is the size of the common ms-marco rerankers)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from app.core.config import Settings
from app.embedding import get_embedder, packaged_model_path
from app.retrieval.rerank import Reranker
from app.retrieval.retriever import Retriever
from app.store.index import IndexStore
from ingest.pipeline import run_ingest

pytestmark = [pytest.mark.model, pytest.mark.slow]


@pytest.fixture(scope="module")
def cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> str:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    target = tmp_path_factory.mktemp("cross-encoder")
    torch.manual_seed(0)
    model = AutoModelForSequenceClassification.from_pretrained(
        str(packaged_model_path()), num_labels=1
    )
    model.save_pretrained(target)
    AutoTokenizer.from_pretrained(str(packaged_model_path())).save_pretrained(target)
    return str(target)


def test_reranker_reorders_a_capped_candidate_set(cross_encoder: str, tmp_path: Path) -> None:
    settings = Settings(
        _env_file=None,
        chroma_path=tmp_path / "c",
        rerank_candidates=6,  # type: ignore[call-arg]
        reranker_model=cross_encoder,
        min_similarity=0.0,
    )
    embedder = get_embedder(settings)
    run_ingest(settings, embedder, IndexStore(settings), clean=True)
    reranker = Reranker(cross_encoder)
    plain = Retriever(IndexStore(settings), embedder, settings)
    reranked = Retriever(IndexStore(settings), embedder, settings, reranker)

    question = "devo tomar a levotiroxina com o estômago vazio?"
    before = plain.search(question, top_k=6).candidates
    result = reranked.search(question, top_k=3)
    scores = [c.rerank_score for c in result.candidates]
    assert len(result.candidates) == 3 and scores == sorted(scores, reverse=True)
    assert {c.id for c in result.candidates} <= {c.id for c in before}  # only the capped set
    assert "rerank" in result.timings_ms
    assert all(-1.0 <= c.score <= 1.0 for c in result.candidates)  # the gate still sees cosine

    started = time.perf_counter()
    for _ in range(3):
        reranked.search(question, top_k=3)
    per_query = (time.perf_counter() - started) / 3 * 1000
    print(f"\nreranker CPU latency: {per_query:.0f} ms per query for 6 candidates")
