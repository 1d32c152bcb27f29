"""One feedback service per process: the store, the answer recorder, and the two things
the API needs: `record_answer` (called by /api/ask) and `add_feedback`.

Created lazily per process, like the embedder (after gunicorn forks); the app's lifespan
starts it (schema check, then the writer: purge) and stops it (flushes the queue).
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import replace

from starlette.concurrency import run_in_threadpool

from app.agent.state import AgentState
from app.core.config import Settings
from app.feedback.ids import created_at_s
from app.feedback.metrics import FEEDBACK_STORED, WRITE_FAILURES
from app.feedback.recorder import AnswerRecorder, utcnow
from app.feedback.store import (
    AnswerRecord,
    FeedbackSchemaError,
    FeedbackStore,
    FeedbackStoreError,
)
from app.safety.pii import EMPTY_QUESTION, clean_question
from app.store.index import IndexStore

log = logging.getLogger(__name__)

# How long after an answer was created POST /api/feedback keeps looking for its record:
# a client may rate it milliseconds after receiving it, while the record still waits in
# a worker's queue (measured under load: up to 2.5 s on a busy 2-core host). Ids older
# than this, or not made by new_answer_id, are looked up once.
ANSWER_WAIT_S = 10.0
_POLL_S = 0.02  # first pause between lookups; doubles up to 0.5 s
_PROBE = "pergunta"
UNKNOWN_BUILD = "unknown"


def storable_question(query: str) -> str:
    """The agent's query, checked once more for personal data. clean_question keeps the
    text as it was when stripping would leave nothing (a "question" that is only a CPF or
    a phone number): behind a neutral word, stripping leaves something, so that case is
    caught here and stored as an empty question (left out of the gaps report)."""
    if query.strip() == EMPTY_QUESTION:
        return ""
    cleaned = clean_question(f"{_PROBE} {query}")
    return re.sub(rf"^{_PROBE}\b[\s,;:.]*", "", cleaned).strip()


def outcome_of(state: AgentState) -> str:
    if state.get("emergency"):
        return "emergency"
    return "refused" if state.get("refused") else "answered"


class FeedbackService:
    def __init__(self, settings: Settings):
        self.store = FeedbackStore(
            settings.feedback_database_url.get_secret_value(), settings.feedback_retention_days
        )
        self.recorder = AnswerRecorder(self.store, settings.feedback_queue_max)

    def start(self) -> None:
        """Check the schema, creating it in an empty database, then start the writer.
        Raises FeedbackSchemaError when the database is behind this code (the message
        names the command that migrates it) or ahead of it: the worker must not start.
        Any other store error (database down, read-only volume) is logged and start goes
        on: answers are served, and the writer retries."""
        try:
            self.store.create_schema(utcnow())
        except FeedbackSchemaError:
            raise
        except FeedbackStoreError as exc:
            log.warning("feedback: schema not checked at start (the writer retries): %s", exc)
        self.recorder.start()

    def stop(self) -> None:
        self.recorder.stop()

    def record(self, state: AgentState, answer_id: str, build_source: Callable[[], str]) -> None:
        """Queue the record of an answer; the question is stripped and the build looked
        up on the writer thread, off the request path."""
        record = AnswerRecord(
            answer_id=answer_id,
            created_at=utcnow(),
            question=state.get("query", ""),
            outcome=outcome_of(state),
            cited=list(state.get("citations", [])),
            retrieval=[(c.id, round(c.score, 4)) for c in state.get("candidates", [])],
            build_id="",
        )

        def finish(r: AnswerRecord) -> AnswerRecord:
            return replace(
                r, question=storable_question(r.question), build_id=_build_id(build_source)
            )

        self.recorder.submit(record, finish)

    async def add_feedback(self, answer_id: str, helpful: bool, reason: str | None) -> bool:
        """Store a rating; False when the answer is unknown or expired. An answer young
        enough to be still queued, here or in another worker, is waited for until
        ANSWER_WAIT_S after its creation. Raises FeedbackStoreError when the store cannot
        be read or written."""
        created = created_at_s(answer_id)
        age = time.time() - created if created is not None else math.inf
        wait = min(ANSWER_WAIT_S - age, ANSWER_WAIT_S) if abs(age) < ANSWER_WAIT_S else 0.0
        deadline = time.monotonic() + wait
        pause = _POLL_S
        while True:
            while self.recorder.is_pending(answer_id) and time.monotonic() < deadline:
                await asyncio.sleep(0.005)
            try:
                stored = await run_in_threadpool(
                    self.store.add_feedback, answer_id, helpful, reason, utcnow()
                )
            except FeedbackStoreError:
                WRITE_FAILURES.labels(what="feedback").inc()
                raise
            if stored:
                FEEDBACK_STORED.labels(helpful=str(helpful).lower()).inc()
                return True
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.5)


def _build_id(source: Callable[[], str]) -> str:
    try:
        return source() or UNKNOWN_BUILD
    except Exception as exc:  # the store's own errors and anything a client library raises
        log.warning("feedback: build id unknown: %s", exc)
        return UNKNOWN_BUILD


_services: dict[tuple[str, int, int], FeedbackService] = {}
_services_lock = threading.Lock()


def get_feedback(settings: Settings) -> FeedbackService:
    """The process-wide feedback service for these settings (created on first use)."""
    key = (
        settings.feedback_database_url.get_secret_value(),
        settings.feedback_retention_days,
        settings.feedback_queue_max,
    )
    with _services_lock:
        if key not in _services:
            _services[key] = FeedbackService(settings)
        return _services[key]


def record_answer(settings: Settings, store: IndexStore, state: AgentState, answer_id: str) -> None:
    """Queue the record of an answer for the background writer. Never raises and never
    waits: an answer must reach the patient whatever happens to the feedback store."""
    try:
        get_feedback(settings).record(state, answer_id, lambda: store.active_collection().name)
    except Exception:  # a bug here must not turn an answer into a 500
        WRITE_FAILURES.labels(what="answer").inc()
        log.exception("feedback: could not queue the answer record")
