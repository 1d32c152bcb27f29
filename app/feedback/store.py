"""Reads and writes of the feedback database, through SQLAlchemy Core.

SQLite (the default) is made safe for several gunicorn workers writing one file:
- WAL journal: readers never block the writer, the writer never blocks readers;
- a busy timeout: a writer waits for another worker's transaction instead of failing;
- write transactions start with BEGIN IMMEDIATE: a worker takes the write lock before it
  reads, so two workers never both hold a read lock and then deadlock upgrading it
  (SQLite fails one of them at once in that case, without waiting);
- synchronous=NORMAL, SQLite's recommendation for WAL: a commit does not wait for an
  fsync (checkpoints do), so the write lock is held for microseconds instead of a disk
  flush and workers rarely queue behind each other. A crashed process loses nothing
  committed; a power cut or kernel crash may lose the last commits, never the file.
WAL needs a local file system (not NFS): several API hosts share PostgreSQL instead
(psycopg 3), where the same code runs unchanged.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    create_engine,
    delete,
    event,
    select,
    text,
    union_all,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from app.core.database_url import describe, parse_database_url
from app.core.errors import ServiceError
from app.feedback import schema
from app.feedback.tables import SCHEMA_VERSION, answers, feedback, schema_info

log = logging.getLogger(__name__)

SQLITE_BUSY_TIMEOUT_S = 10.0
PG_TIMEOUT_MS = 5000
_SCHEMA_LOCK = 0x0FEEDBAC  # PostgreSQL advisory lock: one process creates the schema at once


class FeedbackStoreError(ServiceError):
    """The feedback database could not be read or written: full disk, read-only volume,
    database down, or a schema written by a newer version of the service."""


class FeedbackSchemaError(FeedbackStoreError):
    """The database is not at this service's schema head: behind (the message names the
    command that migrates it) or written by a newer version. The service does not start."""


@dataclass(frozen=True)
class AnswerRecord:
    """One answer as stored: never the raw question, never an address."""

    answer_id: str
    created_at: datetime
    question: str
    outcome: str
    cited: list[str]
    retrieval: list[tuple[str, float]]
    build_id: str

    def row(self) -> dict[str, Any]:
        return {
            "answer_id": self.answer_id,
            "created_at": self.created_at,
            "question": self.question,
            "outcome": self.outcome,
            "cited": list(self.cited),
            "retrieval": [{"id": card, "score": score} for card, score in self.retrieval],
            "build_id": self.build_id,
        }


@dataclass(frozen=True)
class GapRow:
    """A refused question, or one whose answer was rated unhelpful."""

    question: str
    outcome: str
    helpful: bool | None
    reason: str | None
    created_at: datetime


def _sqlite_engine(url: Any) -> Engine:
    Path(url.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url,
        hide_parameters=True,  # a failed statement's message never repeats a question
        connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S, "check_same_thread": False},
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself (below)
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
        _set_wal(cursor)
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        write = conn.get_execution_options().get("feedback_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


def _set_wal(cursor: Any) -> None:
    """PRAGMA journal_mode = WAL, waiting for other workers like the busy timeout does.
    SQLite does not call its busy handler for a journal-mode change: when several workers
    open a new database file at once, one of them got "database is locked" at once
    (reproduced: 6 of 30 rounds of 6 processes; none of 40 with this loop)."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_S
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def _postgres_engine(url: Any) -> Engine:
    return create_engine(
        url,
        hide_parameters=True,
        pool_pre_ping=True,
        pool_size=2,
        max_overflow=4,
        pool_timeout=PG_TIMEOUT_MS / 1000,
        pool_recycle=1800,
        connect_args={
            "connect_timeout": PG_TIMEOUT_MS // 1000,
            "options": f"-c statement_timeout={PG_TIMEOUT_MS} -c lock_timeout={PG_TIMEOUT_MS}",
        },
    )


class FeedbackStore:
    """The answers and feedback tables behind FEEDBACK_DATABASE_URL. Thread-safe; one
    per process (engines are created lazily, after gunicorn forks)."""

    def __init__(self, url: str, retention_days: int):
        self.url = parse_database_url(url)
        self.backend = self.url.get_backend_name()
        self.retention = timedelta(days=retention_days)
        self._engine: Engine | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"FeedbackStore({describe(self.url)})"

    @property
    def engine(self) -> Engine:
        with self._lock:
            if self._engine is None:
                with self._errors("opening the database"):
                    if self.backend == "sqlite":
                        self._engine = _sqlite_engine(self.url)
                    else:
                        self._engine = _postgres_engine(self.url)
            return self._engine

    def dispose(self) -> None:
        with self._lock:
            if self._engine is not None:
                self._engine.dispose()
                self._engine = None

    @contextmanager
    def _errors(self, what: str) -> Iterator[None]:
        try:
            yield
        except (SQLAlchemyError, OSError) as exc:
            cause = exc.orig if isinstance(exc, DBAPIError) else exc
            raise FeedbackStoreError(
                f"feedback store {describe(self.url)}: {what} failed: "
                f"{type(cause).__name__}: {str(cause).strip().splitlines()[0][:300]}"
            ) from exc

    @contextmanager
    def _write(self, what: str) -> Iterator[Connection]:
        with self._errors(what):
            engine = self.engine.execution_options(feedback_write=True)
            with engine.begin() as conn:
                yield conn

    @contextmanager
    def _read(self, what: str) -> Iterator[Connection]:
        with self._errors(what), self.engine.begin() as conn:
            yield conn

    def create_schema(self, now: datetime) -> None:
        """At start: create the tables at head in an empty database, or check that the
        database is at head (schema.ensure_head). Raises FeedbackSchemaError, naming the
        command to run, when it is behind or unknown. Safe when several workers start at
        once: one transaction, serialized by the database."""
        with self._write("creating the schema") as conn:
            self._lock_schema(conn)
            try:
                schema.ensure_head(conn, now)
            except schema.SchemaMismatch as exc:
                raise FeedbackSchemaError(f"feedback store {describe(self.url)} is {exc}") from exc
            self._check_version(conn)

    def upgrade(self, target: str = "head", now: datetime | None = None) -> schema.SchemaState:
        """Migrate the schema up to `target`; returns the state before. For `python -m
        app.feedback.migrate` (an operator, once): the service never calls it."""
        with self._migrating("upgrading the schema") as conn:
            return schema.upgrade(conn, target, now)

    def downgrade(self, target: str) -> schema.SchemaState:
        """Migrate the schema down to revision `target`; returns the state before."""
        with self._migrating("downgrading the schema") as conn:
            return schema.downgrade(conn, target)

    def schema_state(self) -> schema.SchemaState:
        with self._read("reading the schema revision") as conn:
            return schema.state(conn)

    @contextmanager
    def _migrating(self, what: str) -> Iterator[Connection]:
        with self._write(what) as conn:
            self._lock_schema(conn)
            try:
                yield conn
            except schema.SchemaMismatch as exc:
                raise FeedbackSchemaError(f"feedback store {describe(self.url)}: {exc}") from exc

    def _lock_schema(self, conn: Connection) -> None:
        if self.backend == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SCHEMA_LOCK})

    def _check_version(self, conn: Connection) -> None:
        found = conn.execute(select(schema_info.c.version)).scalar()
        if found != SCHEMA_VERSION:
            raise FeedbackSchemaError(
                f"feedback store {describe(self.url)} has schema version {found}; this "
                f"service writes version {SCHEMA_VERSION} and cannot migrate it: "
                "run the service version that wrote it, or point FEEDBACK_DATABASE_URL "
                "at a new database"
            )

    def schema_version(self) -> int | None:
        with self._read("reading the schema version") as conn:
            version = conn.execute(select(schema_info.c.version)).scalar()
            return None if version is None else int(version)

    def record_answers(self, records: Sequence[AnswerRecord]) -> None:
        if records:
            with self._write(f"writing {len(records)} answer(s)") as conn:
                conn.execute(answers.insert(), [r.row() for r in records])

    def answer_known(self, answer_id: str, now: datetime) -> bool:
        """The answer is stored and younger than the retention period."""
        with self._read("looking up an answer") as conn:
            return self._known(conn, answer_id, now)

    def _known(self, conn: Connection, answer_id: str, now: datetime) -> bool:
        created = conn.execute(
            select(answers.c.created_at).where(answers.c.answer_id == answer_id)
        ).scalar()
        return created is not None and created >= now - self.retention

    def add_feedback(
        self, answer_id: str, helpful: bool, reason: str | None, now: datetime
    ) -> bool:
        """Store (or replace) the rating of an answer. False when the answer is unknown or
        expired; nothing is written then."""
        if not self.answer_known(answer_id, now):
            return False
        insert = pg_insert if self.backend == "postgresql" else sqlite_insert
        values = {"answer_id": answer_id, "helpful": helpful, "reason": reason, "created_at": now}
        statement = insert(feedback).values(**values)
        statement = statement.on_conflict_do_update(
            index_elements=[feedback.c.answer_id],
            set_={"helpful": helpful, "reason": reason, "created_at": now},
        )
        with self._write("writing feedback") as conn:
            if not self._known(conn, answer_id, now):  # purged since the lookup
                return False
            conn.execute(statement)
        return True

    def purge(self, now: datetime) -> int:
        """Delete answers (and their feedback) older than the retention period; returns
        how many answers were deleted."""
        cutoff = now - self.retention
        old = select(answers.c.answer_id).where(answers.c.created_at < cutoff)
        with self._write("purging old rows") as conn:
            conn.execute(delete(feedback).where(feedback.c.answer_id.in_(old)))
            deleted = conn.execute(delete(answers).where(answers.c.created_at < cutoff))
        return int(deleted.rowcount or 0)

    def gap_rows(self, now: datetime, days: int, limit: int) -> list[GapRow]:
        """Refused questions and questions whose answer was rated unhelpful, newest first,
        from the last `days` days (never older than the retention period)."""
        since = now - min(timedelta(days=days), self.retention)
        columns = (
            answers.c.question,
            answers.c.outcome,
            answers.c.created_at,
            feedback.c.helpful,
            feedback.c.reason,
        )
        recent = (answers.c.created_at >= since) & (answers.c.question != "")
        # Two index scans instead of one OR over the join: refused answers through
        # ix_answers_outcome_created_at, the other unhelpful ones through
        # ix_feedback_helpful (revision 0002). No answer is in both.
        refused = (
            select(*columns)
            .select_from(answers.outerjoin(feedback, feedback.c.answer_id == answers.c.answer_id))
            .where(answers.c.outcome == "refused", recent)
        )
        unhelpful = (
            select(*columns)
            .select_from(feedback.join(answers, feedback.c.answer_id == answers.c.answer_id))
            .where(feedback.c.helpful.is_(False), answers.c.outcome != "refused", recent)
        )
        both = union_all(refused, unhelpful).subquery()
        query = select(both).order_by(both.c.created_at.desc()).limit(limit)
        with self._read("reading refused and unhelpful questions") as conn:
            return [
                GapRow(r.question, r.outcome, r.helpful, r.reason, r.created_at)
                for r in conn.execute(query)
            ]
