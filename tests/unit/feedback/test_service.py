"""The per-process feedback service: what an answer record holds, answer ids, and how a
rating waits for an answer that may still be queued in another worker."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import pytest

from app.core.config import Settings
from app.feedback import service as service_module
from app.feedback.ids import created_at_s, new_answer_id
from app.feedback.service import FeedbackService, storable_question
from app.feedback.store import AnswerRecord
from tests.fakes import context_chunk
from tests.polling import wait_until
from tests.unit.feedback.helpers import count

T = TypeVar("T")


def run(coro: Coroutine[object, object, T]) -> T:
    """The coroutine on its own event loop in a fresh thread: asyncio.run() refuses to
    start inside a thread that already runs a loop (Playwright's sync API leaves one in
    the main thread when the browser tests run first in the same session)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


@pytest.fixture
def service(tmp_path: Path) -> Iterator[FeedbackService]:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, feedback_database_url=f"sqlite:///{tmp_path / 'feedback.db'}"
    )
    svc = FeedbackService(settings)
    svc.start()
    wait_until(lambda: svc.recorder.schema_ready, 30, what="schema created")
    yield svc
    svc.stop()
    svc.store.dispose()


@pytest.mark.parametrize(
    ("query", "stored"),
    [
        ("devo tomar a levotiroxina em jejum?", "devo tomar a levotiroxina em jejum?"),
        ("meu, devo tomar levotiroxina em jejum?", "meu, devo tomar levotiroxina em jejum?"),
        # clean_question gives these back unchanged when nothing else is left
        ("123.456.789-09", ""),
        ("maria@example.com", ""),
        ("(11) 98765-4321", ""),
        ("CEP 01310-100", ""),
    ],
)
def test_only_a_question_without_personal_data_is_stored(query: str, stored: str) -> None:
    assert storable_question(query) == stored


def test_an_answer_record_holds_query_outcome_cards_scores_and_build(
    service: FeedbackService,
) -> None:
    state = {
        "question": "Meu CPF é 123.456.789-09, devo tomar a levotiroxina em jejum?",
        "query": "Meu, devo tomar a levotiroxina em jejum?",
        "citations": ["card-001"],
        "candidates": [
            context_chunk("card-001", score=0.52481),
            context_chunk("card-019", score=0.48493),
        ],
        "refused": False,
        "emergency": "medical",
    }
    answer_id = new_answer_id()
    service.record(state, answer_id, lambda: "cards-v3-x")  # type: ignore[arg-type]
    wait_until(lambda: count(service.store) == 1, 30, what="the record written")
    with service.store.engine.connect() as conn:
        row = conn.exec_driver_sql("SELECT * FROM answers").one()._mapping
    assert row["answer_id"] == answer_id
    assert row["question"] == "Meu, devo tomar a levotiroxina em jejum?"
    assert row["outcome"] == "emergency"  # emergency comes first, then refused
    assert row["build_id"] == "cards-v3-x"
    assert "123.456" not in str(dict(row))


def test_a_build_that_cannot_be_looked_up_is_recorded_as_unknown(
    service: FeedbackService,
) -> None:
    def broken() -> str:
        raise RuntimeError("chroma is down")

    service.record({"query": "q", "refused": True}, new_answer_id(), broken)
    wait_until(lambda: count(service.store) == 1, 30, what="the record written")
    with service.store.engine.connect() as conn:
        row = conn.exec_driver_sql("SELECT build_id, outcome FROM answers").one()
    assert tuple(row) == ("unknown", "refused")


def test_answer_ids_are_32_hex_characters_carrying_their_time() -> None:
    ids = {new_answer_id() for _ in range(1000)}
    assert len(ids) == 1000
    assert all(len(i) == 32 and int(i, 16) >= 0 and i == i.lower() for i in ids)
    made = created_at_s(new_answer_id(now_ms=1_764_000_000_123))
    assert made == pytest.approx(1_764_000_000.123)
    assert created_at_s("0123456789abcdef0123456789abcdef") is None  # not this layout


def test_a_rating_waits_for_an_answer_another_worker_is_still_writing(
    service: FeedbackService,
) -> None:
    answer_id = new_answer_id()

    def other_worker() -> None:  # its record lands 0.3 s after the answer was sent
        time.sleep(0.3)
        record = AnswerRecord(answer_id, datetime.now(UTC), "q", "answered", [], [], "b")
        service.store.record_answers([record])

    writer = threading.Thread(target=other_worker)
    writer.start()
    assert run(service.add_feedback(answer_id, True, None))
    writer.join()


def test_an_unknown_fresh_id_is_404_after_the_wait_and_an_old_one_at_once(
    service: FeedbackService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service_module, "ANSWER_WAIT_S", 0.3)
    lookups = 0
    real = service.store.add_feedback

    def counted(*args: object) -> bool:
        nonlocal lookups
        lookups += 1
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(service.store, "add_feedback", counted)
    assert not run(service.add_feedback(new_answer_id(), True, None))
    assert lookups > 1  # looked again while the answer could still be queued
    lookups = 0
    old = new_answer_id(now_ms=int((time.time() - 3600) * 1000))
    assert not run(service.add_feedback(old, True, None))
    assert not run(service.add_feedback("0123456789abcdef0123456789abcdef", True, None))
    assert lookups == 2  # once each, no waiting
