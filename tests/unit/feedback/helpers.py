"""Small helpers shared by the feedback tests."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from prometheus_client import REGISTRY
from sqlalchemy import create_engine, func, select

from app.feedback.store import FeedbackStore
from app.feedback.tables import answers, feedback

if TYPE_CHECKING:
    from evaluation.service import Service


def metric(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def failures(what: str) -> float:
    return metric("rag_feedback_write_failures_total", what=what)


def count(store: FeedbackStore, table: str = "answers") -> int:
    t = answers if table == "answers" else feedback
    with store.engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(t)).scalar_one())


_index: dict[str, Path] = {}


def shared_index(factory: pytest.TempPathFactory) -> Path:
    """An embedded Chroma index of the bundled corpus, ingested once per test session
    and read by every feedback service (as `make run`'s workers share one)."""
    if "path" not in _index:
        from evaluation.service import ingest, service_env

        chroma = factory.mktemp("feedback-index") / "chroma"
        done = ingest(service_env(chroma))
        assert done.returncode == 0, done.stderr
        _index["path"] = chroma
    return _index["path"]


def feedback_service(chroma: Path, database_url: str, **env: str) -> Service:
    """A gunicorn service over `chroma` with its own feedback database; every feedback
    setting is explicit, so neither the caller's environment nor a .env changes it."""
    from evaluation.service import Service

    settings = {"ADMIN_API_KEY": "", "FEEDBACK_RETENTION_DAYS": "90", "FEEDBACK_QUEUE_MAX": "1000"}
    return Service(chroma, FEEDBACK_DATABASE_URL=database_url, **{**settings, **env})


def rows(database_url: str, table: str) -> list[dict[str, Any]]:
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            return [dict(r._mapping) for r in conn.exec_driver_sql(f"SELECT * FROM {table}")]
    finally:
        engine.dispose()
