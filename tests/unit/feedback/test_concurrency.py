"""Several processes (as gunicorn workers) write one database at once: each creates the
schema, records answers through its own background writer and rates them, all released
together. No row may be lost and no write may fail."""

from __future__ import annotations

import multiprocessing
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.feedback.store import FeedbackStore
from tests.unit.feedback.helpers import count

PROCESSES = 6
ANSWERS_EACH = 150


def worker(url: str, start: Any, results: Any) -> None:
    from app.feedback.recorder import AnswerRecorder
    from app.feedback.store import AnswerRecord
    from tests.unit.feedback.helpers import failures

    store = FeedbackStore(url, 90)
    recorder = AnswerRecorder(store, queue_max=ANSWERS_EACH)
    ids = [uuid.uuid4().hex for _ in range(ANSWERS_EACH)]
    start.wait()
    t0 = time.perf_counter()
    recorder.start()  # every process creates the schema at the same moment
    for i, answer_id in enumerate(ids):
        now = datetime.now(UTC)
        recorder.submit(
            AnswerRecord(answer_id, now, f"pergunta {i}", "refused", [], [("card-001", 0.1)], "b")
        )
    recorder.stop(timeout_s=120)
    rated = sum(
        store.add_feedback(answer_id, i % 2 == 0, None, datetime.now(UTC))
        for i, answer_id in enumerate(ids)
    )
    results.put(
        {
            "rated": rated,
            "seconds": time.perf_counter() - t0,
            "failures": sum(failures(w) for w in ("answer", "feedback", "schema", "purge")),
        }
    )
    store.dispose()


def test_concurrent_writers_lose_nothing(database_url: str) -> None:
    ctx = multiprocessing.get_context("spawn")
    start, results = ctx.Event(), ctx.Queue()
    procs = [
        ctx.Process(target=worker, args=(database_url, start, results)) for _ in range(PROCESSES)
    ]
    for p in procs:
        p.start()
    start.set()
    outcomes = [results.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    store = FeedbackStore(database_url, 90)
    total = PROCESSES * ANSWERS_EACH
    assert [o["failures"] for o in outcomes] == [0] * PROCESSES
    assert [o["rated"] for o in outcomes] == [ANSWERS_EACH] * PROCESSES
    assert count(store, "answers") == total
    assert count(store, "feedback") == total
    assert store.schema_version() == 1
    slowest = max(o["seconds"] for o in outcomes)
    print(
        f"\n{database_url.split(':')[0]}: {PROCESSES} processes x {ANSWERS_EACH} answers + "
        f"{ANSWERS_EACH} ratings each, {2 * total} writes in {slowest:.2f} s "
        f"({2 * total / slowest:.0f} writes/s)"
    )
    store.dispose()


SCHEMA_ROUNDS = 20


def opener(folder: str, barrier: Any, results: Any) -> None:
    """Opens a new SQLite file at the same moment as the other processes, each round."""
    errors = []
    for r in range(SCHEMA_ROUNDS):
        barrier.wait(timeout=120)
        store = FeedbackStore(f"sqlite:///{folder}/round-{r}.db", 90)
        try:
            store.create_schema(datetime.now(UTC))
        except Exception as exc:  # noqa: BLE001 - reported to the test
            errors.append(f"round {r}: {exc}")
        finally:
            store.dispose()
    results.put(errors)


def test_workers_opening_a_new_sqlite_file_at_once_all_succeed(tmp_path: Path) -> None:
    """SQLite does not wait (busy timeout) on a journal-mode change: before the store
    retried it, about one round in five of six processes opening a new file at once had
    one of them fail with "database is locked"."""
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(PROCESSES), ctx.Queue()
    procs = [
        ctx.Process(target=opener, args=(str(tmp_path), barrier, results)) for _ in range(PROCESSES)
    ]
    for p in procs:
        p.start()
    errors = [e for _ in procs for e in results.get(timeout=300)]
    for p in procs:
        p.join(timeout=60)
    assert errors == []
