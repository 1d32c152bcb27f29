"""Small helpers shared by the feedback tests."""

from __future__ import annotations

import time
from collections.abc import Callable

from prometheus_client import REGISTRY
from sqlalchemy import func, select

from app.feedback.store import FeedbackStore
from app.feedback.tables import answers, feedback


def metric(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def failures(what: str) -> float:
    return metric("rag_feedback_write_failures_total", what=what)


def wait_for(check: Callable[[], bool], what: str, timeout_s: float = 30) -> None:
    """Poll until check() holds, failing with `what` after the deadline."""
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for: {what}")
        time.sleep(0.02)


def count(store: FeedbackStore, table: str = "answers") -> int:
    t = answers if table == "answers" else feedback
    with store.engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(t)).scalar_one())
