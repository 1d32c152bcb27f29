"""The composition root: what one process builds to answer questions (the store, the
embedder, the retriever, the agent and its dependencies), and how it warms them and
follows a switched build.

The API creates it in its lifespan, in each worker after gunicorn forks (app.api.main);
the evaluation and the benchmarks build the same agent from here, without the API."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio.to_thread
from anyio import CapacityLimiter

from app.agent.answerability import QuestionBank, load_model
from app.agent.card_ranker import load_card_ranker
from app.agent.deps import AgentDeps
from app.agent.examples import ExamplesCache
from app.agent.generators import make_generator
from app.agent.graph import Agent
from app.agent.intent import load_intent_model
from app.agent.vectors import SentenceVectors
from app.banks import WARM_CARDS, StoredBanks, sentence_texts
from app.core.config import Settings
from app.core.errors import IndexNotReadyError, StoreUnavailableError
from app.core.vector_cache import BULK
from app.core.vocabulary import portuguese_words, vocabulary
from app.embedding import Embedder, get_embedder
from app.retrieval.coverage import CardLexiconCache
from app.retrieval.rerank import get_reranker
from app.retrieval.retriever import Retriever
from app.safety.emergency import EmergencyDetector
from app.safety.pii import get_stripper
from app.store import schema
from app.store.deadline import deadline
from app.store.index import POINTER_TTL_S, IndexStore

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class Resources:
    settings: Settings
    store: IndexStore
    embedder: Embedder
    vectors: SentenceVectors
    retriever: Retriever
    agent: Agent
    banks: StoredBanks | None = None
    _watching: threading.Event | None = field(default=None, init=False, repr=False)
    _limiter: CapacityLimiter | None = field(default=None, init=False, repr=False)

    async def run(self, fn: Callable[[], T]) -> T:
        """fn on a worker thread, at most PIPELINE_THREADS at once in this process
        (Settings.pipeline_concurrency). Created on first use, inside the event loop that
        awaits it."""
        if self._limiter is None:
            self._limiter = CapacityLimiter(self.settings.pipeline_concurrency)
        return await anyio.to_thread.run_sync(fn, limiter=self._limiter)

    @classmethod
    def create(cls, settings: Settings) -> Resources:
        embedder = get_embedder(settings)
        store = IndexStore(settings)
        vectors = SentenceVectors(embedder)
        retriever = Retriever(store, embedder, settings, get_reranker(settings))
        examples = ExamplesCache(store, embedder.embed)
        # the banks' embeddings: stored with the build by ingest (app.banks), else kept on
        # disk between starts (app.core.vector_cache), else embedded here
        bulk = StoredBanks(embedder.embed, embedder.model_id, store, settings.vector_cache_dir)
        generator = make_generator(settings, vectors, examples.get)
        deps = AgentDeps(
            settings=settings,
            retriever=retriever,
            generator=generator,
            vectors=vectors,
            detector=EmergencyDetector(bulk),
            lexicon=CardLexiconCache(store, vocabulary()),
            vocabulary=vocabulary(),
            model=load_model(),
            bank=QuestionBank.load(bulk),
            intents=load_intent_model(),
            examples=examples.get,
            sentences=getattr(generator, "fallback", generator),
            card_ranker=load_card_ranker(),
        )
        return cls(settings, store, embedder, vectors, retriever, Agent(deps), bulk)

    def warm(
        self,
        max_cards: int = WARM_CARDS,
        store_deadline_s: float | None = None,
        sentences_too: bool = True,
    ) -> None:
        """Load what the first questions would otherwise pay for: the personal-data
        analyzer, the emergency exemplars, the Portuguese word list, the card lexicon and
        the card sentences' embeddings. Best effort for what needs the store: a store that
        is not ready (or does not answer within `store_deadline_s`) is skipped, and the
        build watcher tries again."""
        get_stripper()
        portuguese_words()
        self.agent.deps.detector.bank()
        _ = self.agent.deps.bank.vectors
        try:
            # The deadline bounds reaching the store and finding its build, not reading
            # it: a 10,000-card build (36,594 chunks) takes longer than one request's
            # deadline to read over HTTP, and a worker that skipped it made its first
            # patient wait for it (a 503). Each call stays bounded by CHROMA_TIMEOUT_S.
            with deadline(store_deadline_s) if store_deadline_s else nullcontext():
                self.store.active_collection(refresh=True)
            cards = self.store.list_cards(limit=max_cards)
            self.agent.deps.lexicon.get()
            self.agent.deps.examples()
        except (StoreUnavailableError, IndexNotReadyError) as exc:
            log.info("sentence cache not warmed: %s", exc)
            return
        if not sentences_too:
            return
        texts = sentence_texts(card.text for card in cards)
        missing = self.vectors.missing(texts)
        if self.banks is not None and len(missing) >= BULK:
            # the card sentences ingest stored with the build (app.banks), embedded here
            # only when it did not
            self.vectors.put(missing, self.banks(missing))
        self.vectors.get(texts)
        log.info("sentence cache warmed: %d sentences of %d cards", len(texts), len(cards))

    def watch_builds(self, interval_s: float = POINTER_TTL_S) -> None:
        """Warm each new active build in the background as soon as `ingest --clean`
        switches to it (its snapshot and card lexicon), so that no patient's
        request pays for loading it within its deadline. One daemon thread per process;
        runs outside any request deadline; a store that does not answer is tried again at
        the next tick. stop_watching() ends it."""
        if self._watching is not None:
            return
        stop = self._watching = threading.Event()

        def run() -> None:
            failing = ""
            while not stop.wait(interval_s):
                try:
                    name = str(self.store.active_collection(refresh=True).name)
                    if name != self.store.loaded_build:
                        log.info("active build is now %s; warming it", name)
                        # Snapshot and lexicon only (about a second): embedding every new
                        # sentence here at once would take the CPU from the requests being
                        # served; they embed the few they quote, and the cache keeps them.
                        self.warm(sentences_too=False)
                    failing = ""
                except Exception as exc:  # the next tick tries again; logged once per cause
                    if str(exc) != failing:
                        log.info("build watcher: %s", exc)
                        failing = str(exc)

        threading.Thread(target=run, name="build-watcher", daemon=True).start()

    def stop_watching(self) -> None:
        if self._watching is not None:
            self._watching.set()
            self._watching = None

    def readiness(self) -> dict[str, Any]:
        """Whether this process can serve: store reachable, an active index built the way
        this process embeds. Raises StoreUnavailableError / IndexNotReadyError."""
        self.store.heartbeat()
        name, meta = self.store.active_build(refresh=True)
        self.retriever.check_build()
        return schema.build_summary(name, meta)
