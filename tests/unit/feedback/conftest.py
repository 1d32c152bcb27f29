from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.feedback.store import FeedbackStore
from tests.unit.feedback.postgres import PostgresServer

BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A real PostgreSQL server for the session (Debian's `postgresql` package)."""
    server = PostgresServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database: a SQLite file in tmp, or a new PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'feedback' / 'feedback.db'}"
    server: PostgresServer = request.getfixturevalue("postgres")
    return server.url(server.new_database())


@pytest.fixture
def store(database_url: str) -> Iterator[FeedbackStore]:
    s = FeedbackStore(database_url, retention_days=90)
    yield s
    s.dispose()
