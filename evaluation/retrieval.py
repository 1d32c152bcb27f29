"""Retrieval configurations under evaluation, each built in a temporary store.

- `parent-document`: the production path (ingest pipeline + Retriever), nothing special.
- `card-atomic`: the pre-ADR-0020 baseline, one vector per card (title + text). It exists
  only here, for comparison.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from app.core.config import Settings
from app.embedding import Embedder
from app.retrieval.retriever import Retriever
from app.store.client import make_client
from app.store.index import IndexStore
from ingest.corpus import load_corpus
from ingest.pipeline import run_ingest

DEPTH = 10  # ranks kept per question (MRR looks this deep)


@dataclass
class Ranking:
    ids: list[str]
    top_score: float
    ms: float


class Config(Protocol):
    name: str

    def rank(self, question: str) -> Ranking: ...


class ParentDocument:
    def __init__(self, settings: Settings, embedder: Embedder, workdir: Path, name: str):
        self.name = name
        self.embedder = embedder
        self.settings = settings.model_copy(
            update={"chroma_mode": "embedded", "chroma_path": workdir / "parent-document"}
        )
        self.store = IndexStore(self.settings)
        run_ingest(self.settings, embedder, self.store, clean=True)
        self.retriever = Retriever(self.store, embedder, self.settings)

    def variant(self, name: str, **updates: Any) -> ParentDocument:
        """The same index, searched with other settings (e.g. retrieval_mode)."""
        other = object.__new__(ParentDocument)
        other.name, other.embedder, other.store = name, self.embedder, self.store
        other.settings = self.settings.model_copy(update=updates)
        other.retriever = Retriever(self.store, self.embedder, other.settings)
        return other

    def rank(self, question: str) -> Ranking:
        started = time.perf_counter()
        result = self.retriever.search(question, top_k=DEPTH)
        ms = (time.perf_counter() - started) * 1000
        ids = [c.id for c in result.candidates]
        return Ranking(ids, result.candidates[0].score if ids else -1.0, ms)


class CardAtomic:
    """Baseline: one row per card, embedding title + text, no chunking, no dedupe."""

    def __init__(self, settings: Settings, embedder: Embedder, workdir: Path, name: str):
        self.name = name
        self.embedder = embedder
        conf = settings.model_copy(
            update={"chroma_mode": "embedded", "chroma_path": workdir / "card-atomic"}
        )
        client = make_client(conf)
        self.collection: Any = client.create_collection(
            "card-atomic-baseline",
            configuration={"hnsw": {"space": "cosine"}},
            embedding_function=None,
        )
        cards = load_corpus(settings.corpus_dir).cards
        texts = [f"{c.title}\n\n{c.text}" for c in cards]
        self.collection.add(
            ids=[c.id for c in cards],
            embeddings=[v.tolist() for v in embedder.embed(texts)],
            documents=texts,
        )

    def rank(self, question: str) -> Ranking:
        started = time.perf_counter()
        vector = self.embedder.embed([question])[0].tolist()
        res = self.collection.query(
            query_embeddings=[vector], n_results=DEPTH, include=["distances"]
        )
        ms = (time.perf_counter() - started) * 1000
        ids = list(res["ids"][0])
        top = 1.0 - float(res["distances"][0][0]) if ids else -1.0
        return Ranking(ids, top, ms)
