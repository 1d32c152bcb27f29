"""The banks a worker embeds in bulk at start, computed once per build by ingest and
stored with it (issue 29: workers ready in seconds).

Three banks: the emergency exemplars (app.safety.emergency), the question bank of the
answerability decision (app.agent.question_bank) and the sentences of the cards a worker
warms (app.composition.Resources.warm). `bank_texts` lists each one's texts exactly as the
worker passes them to its embedder; ingest embeds each list in one call, as the worker
would, and stores the vectors in the store (app.store.banks) under a key of the model and
the texts (app.core.vector_cache.cache_key). So a bank whose content changed, or another
model, has another key: it is never served stale vectors, it is embedded again.

`StoredBanks` is the worker's side: an embedding function for bulk calls that reads the
stored vectors of the same key, then the local disk cache (VECTOR_CACHE_DIR), and embeds
only what neither has (logging that the ingest should be re-run).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from app.core.errors import ServiceError, StoreUnavailableError
from app.core.text import fold
from app.core.vector_cache import BULK, Embed, cache_key, cached_embed
from app.store.deadline import deadline

log = logging.getLogger(__name__)

WARM_CARDS = 400  # the cards whose sentences a worker embeds before it serves
# A worker's read of one stored bank (0.2-0.4 s from a Chroma server here): a store that
# does not answer within this costs a start this much once, then it embeds the banks.
BANK_READ_S = 10.0


def sentence_texts(card_texts: Iterable[str]) -> list[str]:
    """The card sentences a worker warms, each once, in order (SentenceVectors.get embeds
    its missing texts so)."""
    from app.agent.text import sentences

    return list(dict.fromkeys(s for text in card_texts for s in sentences(text)))


def bank_texts(card_texts: Sequence[str]) -> dict[str, list[str]]:
    """Each bank's texts, as the worker embeds them. `card_texts`: the texts of the first
    WARM_CARDS cards of the build, in the store's order (IndexStore.list_cards)."""
    from app.agent.question_bank import QuestionBank
    from app.safety.emergency import load_bank_items

    def no_embed(texts: list[str]) -> np.ndarray:
        raise AssertionError("bank_texts reads the banks' texts only")

    return {
        "emergency": [fold(t) for _, _, t in load_bank_items()],
        "questions": list(QuestionBank.load(no_embed).texts),
        "sentences": sentence_texts(card_texts[:WARM_CARDS]),
    }


class StoredBanks:
    """A bulk embedding function: a call with at least BULK texts is read from the store
    (the vectors ingest stored for this model and these texts), else from the disk cache,
    else embedded. Smaller calls (the patients' questions) go straight to `embed`. A store
    that does not answer within BANK_READ_S is not asked again by this process.
    `embedded` counts the texts this process embedded in bulk calls (0 after an ingest)."""

    def __init__(self, embed: Embed, model_id: str, store: Any, cache_dir: Any = None):
        self._embed = embed
        self._model_id = model_id
        self._store = store
        self._local = cached_embed(self._count(embed), model_id, cache_dir)
        self._lock = threading.Lock()
        self.embedded = 0
        self.read_from_store = 0
        self._store_reachable = True

    def _count(self, embed: Embed) -> Embed:
        def counted(texts: list[str]) -> np.ndarray:
            with self._lock:
                self.embedded += len(texts)
            return embed(texts)

        return counted

    def __call__(self, texts: list[str]) -> np.ndarray:
        if len(texts) < BULK:
            return self._embed(texts)
        key = cache_key(self._model_id, texts)
        stored = None
        if self._store_reachable:
            try:
                with deadline(BANK_READ_S):
                    stored = self._store.bank_vectors(key, len(texts))
            except ServiceError as exc:
                log.info("bank of %d texts not read from the store (%s)", len(texts), exc)
                if isinstance(exc, StoreUnavailableError):
                    self._store_reachable = False  # the next banks do not wait for it
        if stored is not None:
            with self._lock:
                self.read_from_store += len(texts)
            log.info("bank of %d texts read from the store (%s)", len(texts), key)
            return np.asarray(stored, dtype=np.float32)
        log.warning(
            "bank of %d texts is not stored with the build (%s); embedding it here unless "
            "the disk cache has it (run the ingest to store it)",
            len(texts),
            key,
        )
        return self._local(texts)


def _wanted(model_id: str, card_texts: Sequence[str]) -> list[tuple[str, str, list[str]]]:
    """(bank, key, texts) of each bank a worker embeds in one bulk call (a bank of fewer
    than BULK texts is embedded directly: StoredBanks passes it through)."""
    return [
        (kind, cache_key(model_id, texts), texts)
        for kind, texts in bank_texts(card_texts).items()
        if len(texts) >= BULK
    ]


def missing_banks(model_id: str, store: Any, card_texts: Sequence[str]) -> list[str]:
    """The banks the store does not hold for this model and these texts."""
    return [
        kind
        for kind, key, texts in _wanted(model_id, card_texts)
        if not store.has_bank(key, len(texts))
    ]


def store_banks(
    embed: Callable[[list[str]], np.ndarray],
    model_id: str,
    store: Any,
    card_texts: Sequence[str],
    batch: int,
) -> dict[str, int]:
    """Embed and store every bank the store does not hold yet for this model and these
    texts; drop the stored banks nobody asks for any more. Returns {bank: texts embedded}
    (0 for a bank already stored)."""
    done: dict[str, int] = {}
    keep: set[str] = set()
    for kind, key, texts in _wanted(model_id, card_texts):
        keep.add(store.bank_name(key))
        if store.has_bank(key, len(texts)):
            done[kind] = 0
            continue
        vectors = np.asarray(embed(texts), dtype=np.float32)  # one call, as a worker makes it
        store.write_bank(key, {"bank": kind, "model": model_id}, vectors, batch)
        log.info("stored the %s bank (%d texts, %s)", kind, len(texts), key)
        done[kind] = len(texts)
    for name in store.list_banks():
        if name not in keep:
            store.delete_collection(name)
    return done
