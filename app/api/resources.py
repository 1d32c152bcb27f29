"""Per-process resources, created in the app's lifespan (after gunicorn forks)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from app.agent.answerability import QuestionBank, load_model
from app.agent.generators import make_generator
from app.agent.graph import Agent
from app.agent.nodes import AgentDeps
from app.agent.text import sentences
from app.agent.vectors import SentenceVectors
from app.core.config import Settings
from app.core.errors import IndexNotReadyError, StoreUnavailableError
from app.core.vocabulary import vocabulary
from app.embedding import Embedder, get_embedder
from app.retrieval.coverage import CardLexiconCache
from app.retrieval.rerank import get_reranker
from app.retrieval.retriever import Retriever
from app.safety.emergency import EmergencyDetector
from app.safety.pii import get_stripper
from app.store import schema
from app.store.index import IndexStore

log = logging.getLogger(__name__)


@dataclass
class Resources:
    settings: Settings
    store: IndexStore
    embedder: Embedder
    vectors: SentenceVectors
    retriever: Retriever
    agent: Agent

    @classmethod
    def create(cls, settings: Settings) -> Resources:
        embedder = get_embedder(settings)
        store = IndexStore(settings)
        vectors = SentenceVectors(embedder)
        retriever = Retriever(store, embedder, settings, get_reranker(settings))
        deps = AgentDeps(
            settings=settings,
            retriever=retriever,
            generator=make_generator(settings, vectors),
            vectors=vectors,
            detector=EmergencyDetector(embedder.embed),
            lexicon=CardLexiconCache(store, vocabulary()),
            vocabulary=vocabulary(),
            model=load_model(),
            bank=QuestionBank.load(embedder.embed),
        )
        return cls(settings, store, embedder, vectors, retriever, Agent(deps))

    def warm(self, max_cards: int = 400) -> None:
        """Load what the first questions would otherwise pay for: the personal-data
        analyzer, the emergency exemplars, the card lexicon and the card sentences'
        embeddings. Best effort for what needs the store: a store that is not ready is
        skipped."""
        get_stripper()
        self.agent.deps.detector.bank()
        _ = self.agent.deps.bank.vectors
        try:
            cards = self.store.list_cards(limit=max_cards)
            self.agent.deps.lexicon.get()
        except (StoreUnavailableError, IndexNotReadyError) as exc:
            log.info("sentence cache not warmed: %s", exc)
            return
        texts = [s for card in cards for s in sentences(card.text)]
        self.vectors.get(texts)
        log.info("sentence cache warmed: %d sentences of %d cards", len(texts), len(cards))

    def readiness(self) -> dict[str, Any]:
        """Whether this process can serve: store reachable, an active index built the way
        this process embeds. Raises StoreUnavailableError / IndexNotReadyError."""
        self.store.heartbeat()
        name, meta = self.store.active_build(refresh=True)
        self.retriever.check_build()
        return schema.build_summary(name, meta)
