"""Per-process resources, created in the app's lifespan (after gunicorn forks)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from app.agent.generators import make_generator
from app.agent.graph import Agent, make_agent
from app.agent.text import sentences
from app.core.config import Settings
from app.core.errors import IndexNotReadyError, StoreUnavailableError
from app.embedding import Embedder, get_embedder
from app.retrieval.rerank import get_reranker
from app.retrieval.retriever import Retriever
from app.store.index import IndexStore

log = logging.getLogger(__name__)


@dataclass
class Resources:
    settings: Settings
    store: IndexStore
    embedder: Embedder
    retriever: Retriever
    agent: Agent

    @classmethod
    def create(cls, settings: Settings) -> Resources:
        embedder = get_embedder(settings)
        store = IndexStore(settings)
        retriever = Retriever(store, embedder, settings, get_reranker(settings))
        agent = make_agent(retriever, make_generator(settings, embedder), settings)
        return cls(settings, store, embedder, retriever, agent)

    def warm(self, max_cards: int = 400) -> None:
        """Embed the sentences of the served cards once, so the first questions a worker
        answers do not pay for it. Best effort: a store that is not ready is skipped."""
        try:
            rows = self.store.get_rows(where={"chunk_index": 0}, limit=max_cards)
        except (StoreUnavailableError, IndexNotReadyError) as exc:
            log.info("sentence cache not warmed: %s", exc)
            return
        texts = [s for r in rows for s in sentences(str(r.metadata.get("parent_text", "")))]
        self.agent.deps.vectors.get(texts)
        log.info("sentence cache warmed: %d sentences of %d cards", len(texts), len(rows))

    def readiness(self) -> dict[str, Any]:
        """Whether this process can serve: store reachable, an active index built the way
        this process embeds. Raises StoreUnavailableError / IndexNotReadyError."""
        self.store.heartbeat()
        collection = self.store.active_collection(refresh=True)  # name and metadata together
        meta = dict(collection.metadata or {})
        self.retriever.check_build()
        return {
            "collection": collection.name,
            "built_at": meta.get("built_at"),
            "cards": meta.get("card_count"),
            "chunks": meta.get("chunk_count"),
            "embedding_model": meta.get("embedding_model"),
        }
