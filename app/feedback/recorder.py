"""The answer recorder: /api/ask hands each answer record to a bounded queue and returns
at once; one background thread per process writes the records in batches.

- Queue full: the record is dropped, counted (rag_feedback_answers_dropped_total) and
  logged; /api/ask never waits for the database.
- Write failed (full disk, read-only volume, database down): the batch is dropped,
  counted (rag_feedback_write_failures_total{what="answer"}) and logged (the first
  failure, then at most every LOG_EVERY_S); the next batch tries again.
- The schema is created, and old rows purged, when the thread starts; the purge runs
  again at most once per PURGE_EVERY_S, after a write.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime

from app.feedback.metrics import ANSWERS_DROPPED, ANSWERS_RECORDED, WRITE_FAILURES, WRITE_SECONDS
from app.feedback.store import AnswerRecord, FeedbackStore, FeedbackStoreError

log = logging.getLogger(__name__)

BATCH_MAX = 200
PURGE_EVERY_S = 3600.0
LOG_EVERY_S = 10.0

# Completes a record on the writer thread (e.g. strips the question, looks up the
# build), so that the request only pays for putting it in the queue.
Finish = Callable[[AnswerRecord], AnswerRecord]
Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)


class _Throttled:
    """Log the first event, then at most one summary every LOG_EVERY_S."""

    def __init__(self) -> None:
        self.count = 0
        self.last = -math.inf
        self.lock = threading.Lock()

    def hit(self, n: int = 1) -> int:
        """How many events to report now (0 = stay quiet)."""
        with self.lock:
            self.count += n
            now = time.monotonic()
            if now - self.last < LOG_EVERY_S:
                return 0
            self.last, reported, self.count = now, self.count, 0
            return reported


class AnswerRecorder:
    def __init__(self, store: FeedbackStore, queue_max: int, clock: Clock = utcnow):
        self.store = store
        self.clock = clock
        self._queue: queue.Queue[tuple[AnswerRecord, Finish | None, float]] = queue.Queue(
            maxsize=queue_max
        )
        self._pending: set[str] = set()
        self._pending_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._thread_lock = threading.Lock()
        self._stop = threading.Event()
        self._schema_ready = False
        self._last_purge = -math.inf
        self._drops = _Throttled()
        self._failures = _Throttled()
        self._failing = False

    # --- the request side -------------------------------------------------------------

    def submit(self, record: AnswerRecord, finish: Finish | None = None) -> bool:
        """Queue a record, to be completed by `finish` on the writer thread; False
        (counted, logged) when the queue is full. Never blocks."""
        self.start()
        with self._pending_lock:
            self._pending.add(record.answer_id)
        try:
            self._queue.put_nowait((record, finish, time.monotonic()))
        except queue.Full:
            with self._pending_lock:
                self._pending.discard(record.answer_id)
            ANSWERS_DROPPED.inc()
            if n := self._drops.hit():
                log.warning(
                    "feedback: write queue full (FEEDBACK_QUEUE_MAX=%d): %d answer record(s) "
                    "dropped",
                    self._queue.maxsize,
                    n,
                )
            return False
        return True

    def backlog(self) -> int:
        """Records queued and not yet taken by the writer."""
        return self._queue.qsize()

    @property
    def schema_ready(self) -> bool:
        return self._schema_ready

    def is_pending(self, answer_id: str) -> bool:
        """Queued in this process and not yet written (or failed)."""
        with self._pending_lock:
            return answer_id in self._pending

    # --- lifecycle ----------------------------------------------------------------------

    def start(self) -> None:
        with self._thread_lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="feedback-writer", daemon=True)
            self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Write what is queued (within the timeout), then end the thread."""
        self._stop.set()
        with self._thread_lock:
            thread = self._thread
        if thread is not None:
            thread.join(timeout_s)

    # --- the writer thread --------------------------------------------------------------

    def _run(self) -> None:
        self._prepare()
        while not (self._stop.is_set() and self._queue.empty()):
            try:
                batch = [self._queue.get(timeout=0.2)]
            except queue.Empty:
                continue
            while len(batch) < BATCH_MAX:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                self._write(batch)
                self._maybe_purge()
            except Exception:  # the thread must outlive any bug in one batch
                WRITE_FAILURES.labels(what="answer").inc(len(batch))
                log.exception("feedback: unexpected error writing %d answer record(s)", len(batch))
            finally:
                with self._pending_lock:
                    self._pending.difference_update(r.answer_id for r, _, _ in batch)

    def _prepare(self) -> bool:
        """Create the schema (once) and purge; False when the store cannot be written."""
        if self._schema_ready:
            return True
        try:
            self.store.create_schema(self.clock())
        except FeedbackStoreError as exc:
            WRITE_FAILURES.labels(what="schema").inc()
            if self._failures.hit():
                log.error("feedback: cannot prepare the store: %s", exc)
            return False
        self._schema_ready = True
        self._purge()
        return True

    def _maybe_purge(self) -> None:
        if time.monotonic() - self._last_purge >= PURGE_EVERY_S:
            self._purge()

    def _purge(self) -> None:
        self._last_purge = time.monotonic()
        try:
            deleted = self.store.purge(self.clock())
        except FeedbackStoreError as exc:
            WRITE_FAILURES.labels(what="purge").inc()
            log.error("feedback: retention purge failed: %s", exc)
            return
        if deleted:
            log.info("feedback: purged %d answer(s) older than the retention period", deleted)

    def _write(self, batch: list[tuple[AnswerRecord, Finish | None, float]]) -> None:
        records = []
        for record, finish, _ in batch:
            try:
                records.append(finish(record) if finish else record)
            except Exception:  # one bad record must not cost the batch
                WRITE_FAILURES.labels(what="answer").inc()
                log.exception("feedback: could not complete an answer record")
        try:
            if not self._prepare():
                raise FeedbackStoreError("the feedback schema could not be created (logged above)")
            self.store.record_answers(records)
        except FeedbackStoreError as exc:
            WRITE_FAILURES.labels(what="answer").inc(len(records))
            self._failing = True
            if n := self._failures.hit(len(records)):
                log.error("feedback: %d answer record(s) not written: %s", n, exc)
            return
        if self._failing:
            self._failing = False
            log.warning("feedback: the store is writable again")
        ANSWERS_RECORDED.inc(len(records))
        done = time.monotonic()
        for _, _, queued in batch:
            WRITE_SECONDS.observe(done - queued)
