"""The background writer: /api/ask never waits for it, a full queue drops and counts, a
full disk or a read-only volume fails, is counted, and the writer recovers."""

from __future__ import annotations

import sqlite3
import threading
import uuid
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.feedback.recorder import AnswerRecorder
from app.feedback.store import AnswerRecord, FeedbackStore, FeedbackStoreError
from tests.polling import wait_until
from tests.unit.feedback.disk import fill, set_read_only, tmpfs
from tests.unit.feedback.helpers import count, failures, metric


def record(question: str = "ozempic emagrece?") -> AnswerRecord:
    return AnswerRecord(
        answer_id=uuid.uuid4().hex,
        created_at=datetime.now(UTC),
        question=question,
        outcome="refused",
        cited=[],
        retrieval=[("card-029", 0.1179)],
        build_id="",
    )


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[FeedbackStore]:
    store = FeedbackStore(f"sqlite:///{tmp_path / 'feedback.db'}", 90)
    yield store
    store.dispose()


def started(store: FeedbackStore, queue_max: int = 100) -> AnswerRecorder:
    recorder = AnswerRecorder(store, queue_max)
    recorder.start()
    wait_until(lambda: recorder.schema_ready, 30, what="the schema to be created")
    return recorder


def test_records_are_completed_on_the_writer_thread_and_written(
    sqlite_store: FeedbackStore,
) -> None:
    recorder = started(sqlite_store)
    written = metric("rag_feedback_answers_recorded_total")
    callers = set()

    def finish(r: AnswerRecord) -> AnswerRecord:
        callers.add(threading.current_thread().name)
        return replace(r, build_id="cards-v3-test")

    for _ in range(5):
        assert recorder.submit(record(), finish)
    wait_until(lambda: count(sqlite_store) == 5, 30, what="5 answers written")
    recorder.stop()
    assert callers == {"feedback-writer"}
    assert metric("rag_feedback_answers_recorded_total") - written == 5
    with sqlite_store.engine.connect() as conn:
        builds = {b for (b,) in conn.exec_driver_sql("SELECT build_id FROM answers")}
    assert builds == {"cards-v3-test"}


def test_a_record_that_cannot_be_completed_is_counted_and_the_rest_written(
    sqlite_store: FeedbackStore,
) -> None:
    recorder = started(sqlite_store)
    failed = failures("answer")

    def broken(r: AnswerRecord) -> AnswerRecord:
        raise RuntimeError("bug")

    recorder.submit(record(), broken)
    recorder.submit(record())
    wait_until(lambda: count(sqlite_store) == 1, 30, what="the good record written")
    recorder.stop()
    assert failures("answer") - failed == 1


def test_a_full_queue_drops_and_counts_and_loses_nothing_it_accepted(
    sqlite_store: FeedbackStore, tmp_path: Path
) -> None:
    recorder = started(sqlite_store, queue_max=3)
    dropped = metric("rag_feedback_answers_dropped_total")
    failed = failures("answer")
    blocker = sqlite3.connect(tmp_path / "feedback.db", isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")  # another worker holding the write lock
    try:
        assert recorder.submit(record())
        wait_until(lambda: recorder.backlog() == 0, 30, what="the writer to take the first record")
        assert all(recorder.submit(record()) for _ in range(3))  # the queue is now full
        assert not recorder.submit(record()) and not recorder.submit(record())
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    wait_until(lambda: count(sqlite_store) == 4, 30, what="the 4 accepted answers written")
    recorder.stop()
    assert metric("rag_feedback_answers_dropped_total") - dropped == 2
    assert failures("answer") == failed


def test_a_full_disk_fails_the_write_is_counted_and_the_writer_recovers() -> None:
    with tmpfs("512k") as mount:
        store = FeedbackStore(f"sqlite:///{mount / 'feedback.db'}", 90)
        recorder = started(store)
        first = record()
        recorder.submit(first)
        wait_until(lambda: count(store) == 1, 30, what="the first answer written")
        failed = failures("answer")
        filler = fill(mount)

        recorder.submit(record())
        wait_until(lambda: failures("answer") > failed, 30, what="the failed write to be counted")
        assert count(store) == 1
        with pytest.raises(FeedbackStoreError, match="writing feedback failed.*full"):
            store.add_feedback(first.answer_id, False, "outro", datetime.now(UTC))

        filler.unlink()
        assert recorder.submit(record())
        wait_until(lambda: count(store) == 2, 30, what="a write after space was freed")
        assert store.add_feedback(first.answer_id, False, "outro", datetime.now(UTC))
        recorder.stop()
        store.dispose()


def test_a_read_only_volume_fails_the_write_is_counted_and_the_writer_recovers() -> None:
    with tmpfs("4m") as mount:
        url = f"sqlite:///{mount / 'feedback.db'}"
        setup = FeedbackStore(url, 90)
        setup.create_schema(datetime.now(UTC))
        setup.dispose()  # no file open for writing, so the volume can be made read-only
        set_read_only(mount, True)

        store = FeedbackStore(url, 90)
        recorder = AnswerRecorder(store, 100)
        schema_failed, answer_failed = failures("schema"), failures("answer")
        recorder.start()
        wait_until(lambda: failures("schema") > schema_failed, 30, what="the schema check to fail")
        recorder.submit(record())
        wait_until(
            lambda: failures("answer") > answer_failed, 30, what="the failed write to be counted"
        )
        with pytest.raises(FeedbackStoreError):
            store.add_feedback(uuid.uuid4().hex, True, None, datetime.now(UTC))

        store.dispose()
        set_read_only(mount, False)
        recorder.submit(record())
        wait_until(lambda: count(store) == 1, 30, what="a write once the volume is writable again")
        recorder.stop()
        store.dispose()
