"""The settings an ingest runs with (ingest/__main__.py)."""

from __future__ import annotations

from typing import Any

import pytest

import app.store.index
from app.core.config import Settings
from app.core.errors import StoreUnavailableError
from ingest.__main__ import EXIT_STORE_DOWN, main


def test_an_ingest_takes_the_larger_store_timeout() -> None:
    settings = Settings(_env_file=None, chroma_timeout_s=10, chroma_ingest_timeout_s=30)  # type: ignore[call-arg]
    assert settings.for_ingest().chroma_timeout_s == 30
    assert settings.chroma_timeout_s == 10  # the served settings are not changed
    slow = Settings(_env_file=None, chroma_timeout_s=40, chroma_ingest_timeout_s=30)  # type: ignore[call-arg]
    assert slow.for_ingest().chroma_timeout_s == 40


def test_the_ingest_command_opens_its_store_with_the_ingest_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its bulk writes (5,000 rows a call) timed out at the serving calls' 10 s on a busy
    host; the command now gives its store CHROMA_INGEST_TIMEOUT_S."""
    monkeypatch.setenv("CHROMA_TIMEOUT_S", "2")
    monkeypatch.setenv("CHROMA_INGEST_TIMEOUT_S", "45")
    seen: list[float] = []

    class Unreachable:
        def __init__(self, settings: Settings, *args: Any, **kwargs: Any) -> None:
            seen.append(settings.chroma_timeout_s)
            raise StoreUnavailableError("the store did not answer")

    monkeypatch.setattr(app.store.index, "IndexStore", Unreachable)
    assert main([]) == EXIT_STORE_DOWN
    assert seen == [45.0]
