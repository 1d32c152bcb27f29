"""The post-dedupe parent view, with subchunks seeded directly at the store layer."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.core.cards import Card
from app.core.config import Settings
from app.core.errors import IndexNotReadyError
from app.retrieval.models import ContextChunk
from app.retrieval.parents import dedupe_and_expand
from app.retrieval.retriever import Retriever
from app.store import schema
from app.store.index import Hit, IndexStore
from app.store.snapshot import BuildSnapshot


@dataclass(frozen=True)
class FakeChunk:
    index: int
    text: str
    start: int = 0
    end: int = 0


def row(parent: str, index: int, text: str = "", title: str = "") -> schema.Row:
    """A stored row, built the way ingest builds one."""
    card = Card.model_construct(
        id=parent,
        title=title or f"Título {parent}",
        text=text or f"texto inteiro de {parent}",
        topics=["a", "b"],
        source="sintético",
        license="CC-BY-4.0",
        accessed_at=date(2026, 5, 1),
        reviewed_at=date(2026, 6, 1),
    )
    return schema.row_from(card, FakeChunk(index, f"trecho {index} de {parent}"))


def hit(parent: str, index: int, score: float) -> Hit:
    return Hit(id=schema.chunk_id(parent, index), score=score)


def build_of(hits: list[Hit]) -> BuildSnapshot:
    """The snapshot of a build holding the rows the hits name."""
    rows = [row(h.card_id, int(h.id.split("::")[1])) for h in hits]
    return BuildSnapshot.from_rows(
        "cards-v-test", {}, [(r.id, r.document, r.metadata) for r in rows]
    )


def dedupe(hits: list[Hit], top_k: int, min_similarity: float | None = None) -> list[ContextChunk]:
    return dedupe_and_expand(hits, build_of(hits), top_k, min_similarity)


def test_dedupe_keeps_best_subchunk_per_parent() -> None:
    hits = [
        hit("card-001", 2, 0.9),
        hit("card-002", 0, 0.8),
        hit("card-001", 0, 0.7),
        hit("card-002", 3, 0.85),
        hit("card-003", 1, 0.6),
    ]
    parents = dedupe(hits, top_k=10)
    assert [(p.id, p.score) for p in parents] == [
        ("card-001", 0.9),
        ("card-002", 0.85),
        ("card-003", 0.6),
    ]
    first = parents[0]
    assert first.text == "texto inteiro de card-001"
    assert first.matched is not None
    assert (first.matched.id, first.matched.index) == ("card-001::02", 2)
    assert first.matched.text == first.matched_text == "trecho 2 de card-001"
    assert first.title == first.card.title == "Título card-001"
    assert first.card.accessed_at == date(2026, 5, 1)
    assert first.rank_score == first.score == 0.9


def test_truncates_to_top_k_parents() -> None:
    hits = [hit(f"card-{i:03d}", j, 1 - i / 10 - j / 100) for i in range(1, 8) for j in range(3)]
    assert [p.id for p in dedupe(hits, top_k=3)] == ["card-001", "card-002", "card-003"]


def test_gate_applies_to_best_per_parent_score() -> None:
    # card-002 has one weak and one strong subchunk: its best score passes the gate.
    hits = [
        hit("card-001", 0, 0.2),
        hit("card-002", 0, 0.1),
        hit("card-002", 1, 0.55),
        hit("card-003", 0, 0.29),
    ]
    parents = dedupe(hits, top_k=5, min_similarity=0.3)
    assert [p.id for p in parents] == ["card-002"]
    assert dedupe(hits, top_k=5, min_similarity=0.6) == []


def seed(settings: Settings, rows: list[tuple[str, int, np.ndarray]]) -> IndexStore:
    store = IndexStore(settings)
    name = store.new_version_name()
    build = schema.expected_build(settings, VectorEmbedder.model_id, VectorEmbedder.dimension)
    cards = len({p for p, _, _ in rows})
    meta = schema.new_build(build, "2026-01-01T00:00:00+00:00", cards, len(rows))
    store.create_version(name, meta)
    stored = [row(p, i, text=f"card {p}", title=p) for p, i, _ in rows]
    store.write_rows(name, stored, [v.tolist() for _, _, v in rows], batch=100)
    store.mark_ready(name, meta)
    store.activate(name)
    return store


class VectorEmbedder:
    model_id = "fixed"
    dimension = 8

    def __init__(self, vector: np.ndarray):
        self.vector = vector

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.vector for _ in texts])


def unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        _env_file=None,
        chroma_path=tmp_path / "c",
        top_k=3,
        overfetch_multiple=2,
        min_similarity=0.0,
    )


def test_overfetch_finds_top_k_parents_when_one_parent_floods_the_top(settings: Settings) -> None:
    rng = np.random.default_rng(7)
    query = unit(np.ones(8))
    rows: list[tuple[str, int, Any]] = []
    # card-001 has 20 subchunks all closer to the query than any other card's subchunks.
    for i in range(20):
        rows.append(("card-001", i, unit(query + 0.01 * rng.standard_normal(8))))
    for p in range(2, 6):
        for i in range(4):
            rows.append((f"card-{p:03d}", i, unit(query + 0.8 * rng.standard_normal(8))))
    store = seed(settings, rows)
    retriever = Retriever(store, VectorEmbedder(query), settings)
    # The plain over-fetch (3 x 2 = 6 rows) sees only card-001; the result still has 3 parents.
    assert retriever.fetch_size(3) == 6
    result = retriever.search("pergunta", top_k=3)
    assert len(result.candidates) == 3
    assert result.candidates[0].id == "card-001"
    assert len({c.id for c in result.candidates}) == 3
    assert result.fetched > 6


def test_fewer_parents_than_top_k_returns_all(settings: Settings) -> None:
    query = unit(np.ones(8))
    store = seed(settings, [("card-001", i, query) for i in range(5)])
    result = Retriever(store, VectorEmbedder(query), settings).search("q", top_k=3)
    assert [c.id for c in result.candidates] == ["card-001"]


def test_search_gate_filters_parents_below_min_similarity(settings: Settings) -> None:
    query = unit(np.eye(8)[0])
    rows = [
        ("card-001", 0, unit(np.eye(8)[0] + 0.1 * np.eye(8)[1])),
        ("card-002", 0, unit(np.eye(8)[2])),
    ]
    store = seed(settings, rows)
    gated = Settings(**{**settings.model_dump(), "min_similarity": 0.5})
    result = Retriever(store, VectorEmbedder(query), gated).search("q", top_k=3)
    assert [c.id for c in result.candidates] == ["card-001", "card-002"]
    assert [c.id for c in result.parents] == ["card-001"]


def test_a_build_made_differently_is_never_searched(settings: Settings) -> None:
    query = unit(np.ones(8))
    store = seed(settings, [("card-001", 0, query)])
    other = settings.model_copy(update={"chunk_size": settings.chunk_size + 1})
    with pytest.raises(IndexNotReadyError, match="chunk_size: index has"):
        Retriever(IndexStore(other), VectorEmbedder(query), other).search("q")
    assert Retriever(store, VectorEmbedder(query), settings).search("q").candidates


def test_a_card_matching_in_several_places_ranks_above_a_single_match() -> None:
    # card-002 matches three times just below card-001's single best subchunk.
    hits = [
        hit("card-001", 0, 0.60),
        hit("card-002", 1, 0.59),
        hit("card-002", 0, 0.55),
        hit("card-002", 2, 0.50),
        hit("card-003", 0, 0.40),
    ]
    build = build_of(hits)
    plain = dedupe_and_expand(hits, build, top_k=3)
    ranked = dedupe_and_expand(hits, build, top_k=3, bonus=0.025, window=16)
    assert [p.id for p in plain] == ["card-001", "card-002", "card-003"]
    assert [p.id for p in ranked] == ["card-002", "card-001", "card-003"]
    # The score (gate, API) is still the best cosine; the rank score carries the bonus.
    assert [p.score for p in ranked] == [0.59, 0.60, 0.40]
    assert ranked[0].rank_score == pytest.approx(0.59 + 2 * 0.025)
    # Only subchunks within the window count.
    narrow = dedupe_and_expand(hits, build, top_k=3, bonus=0.025, window=2)
    assert [p.id for p in narrow] == ["card-001", "card-002", "card-003"]
