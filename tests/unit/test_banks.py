"""app.banks.StoredBanks against a store that does not answer: one bounded try, then the
banks are embedded without asking it again (a worker's start is not held by each bank)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from app import banks
from app.core.errors import StoreUnavailableError
from app.core.vector_cache import BULK
from app.store import deadline


class DeadStore:
    """A store whose reads hang until the open deadline, as a server that accepts and
    never answers does behind ChromaCalls."""

    def __init__(self) -> None:
        self.asked = 0

    def bank_vectors(self, key: str, count: int) -> None:
        self.asked += 1
        left = deadline.remaining()
        assert left is not None, "a bank read must run under a deadline"
        time.sleep(max(left, 0))
        raise StoreUnavailableError("no answer within the deadline")


def test_an_unreachable_store_is_asked_once_within_its_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(banks, "BANK_READ_S", 0.2)
    embedded: list[int] = []

    def embed(texts: list[str]) -> np.ndarray:
        embedded.append(len(texts))
        return np.ones((len(texts), 4), dtype=np.float32)

    store = DeadStore()
    bulk = banks.StoredBanks(embed, "model-x", store, cache_dir=None)
    start = time.monotonic()
    for n in (BULK, BULK + 1, BULK + 2):
        assert bulk([f"texto {i}" for i in range(n)]).shape == (n, 4)
    assert time.monotonic() - start < 2
    assert store.asked == 1
    assert embedded == [BULK, BULK + 1, BULK + 2]
    assert bulk.embedded == sum(embedded) and bulk.read_from_store == 0
    assert bulk(["uma pergunta"]).shape == (1, 4)  # a patient's question: never the store
    assert store.asked == 1
