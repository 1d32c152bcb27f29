"""A card about a medicine the question names is always among the cards the ranker weighs,
even when none of its rows is among the nearest (app.retrieval.retriever, `include`).
Real embedded Chroma, the real packaged model, a real ingest; the service over real HTTP."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from app.agent.tunables import WIDEN
from app.core.config import Settings
from app.core.text import fold
from app.embedding import get_embedder
from app.retrieval.retriever import Retriever
from app.store.index import IndexStore
from ingest.pipeline import run_ingest
from tests.integration.conftest import Service

pytestmark = [pytest.mark.model, pytest.mark.slow]

# Fresh author c1's question: embedded as the agent embeds it (accent-folded), none of the
# AAS card's rows is among the rows of the 15 nearest cards the agent over-fetches (top_k 5
# x WIDEN 3), so before `include` the card ranker never saw card-016 and the answer quoted
# the stroke card.
AAS = "tomo o aas todo dia de manha, é antes ou depois de come?"


def test_an_included_card_the_nearest_rows_missed_is_added_last(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, chroma_path=tmp_path / "c", min_similarity=0.0)  # type: ignore[call-arg]
    embedder = get_embedder(settings)
    run_ingest(settings, embedder, IndexStore(settings), clean=True)
    retriever = Retriever(IndexStore(settings), embedder, settings)
    vector = embedder.embed([fold(AAS)])[0]
    plain = retriever.search(AAS, top_k=5 * WIDEN, vector=vector).candidates
    assert "card-016" not in [c.id for c in plain]  # what the test is about
    found = retriever.search(
        AAS, top_k=5 * WIDEN, vector=vector, include={"card-016", "card-001"}
    ).candidates
    assert [c.id for c in found[:-1]] == [c.id for c in plain]  # card-001 was found already
    added = found[-1]
    assert added.id == "card-016" and added.card.title.startswith("AAS")
    assert 0.0 < added.score == added.rank_score <= min(c.score for c in plain) + 1e-6


def test_a_named_medicine_the_nearest_rows_missed_is_answered_from_its_card(
    service: Service,
) -> None:
    # another wording whose 15 nearest cards miss card-016 too (checked when written)
    question = "tomo aas de manha, antes ou depois de come?"
    body = httpx.post(f"{service.url}/api/ask", json={"question": question}, timeout=60).json()
    assert [c["id"] for c in body["citations"]][:1] == ["card-016"], body
    assert "após uma refeição" in body["answer"], body["answer"]
