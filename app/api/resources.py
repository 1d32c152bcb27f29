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
from app.store import schema
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
            cards = self.store.list_cards(limit=max_cards)
        except (StoreUnavailableError, IndexNotReadyError) as exc:
            log.info("sentence cache not warmed: %s", exc)
            return
        texts = [s for card in cards for s in sentences(card.text)]
        self.agent.deps.vectors.get(texts)
        log.info("sentence cache warmed: %d sentences of %d cards", len(texts), len(cards))

    def readiness(self) -> dict[str, Any]:
        """Whether this process can serve: store reachable, an active index built the way
        this process embeds. Raises StoreUnavailableError / IndexNotReadyError."""
        self.store.heartbeat()
        name, meta = self.store.active_build(refresh=True)
        self.retriever.check_build()
        return schema.build_summary(name, meta)
