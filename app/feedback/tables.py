"""The feedback schema (SQLAlchemy Core). No IP address, no raw question: `question` is
the agent state's "query" (markup and personal data removed).

A change to these tables comes with a revision in migrations/versions/ (app.feedback.schema;
tests/unit/feedback/test_migrations.py checks that head makes exactly these tables).
SCHEMA_VERSION, kept in feedback_schema, is what services older than the migrations check:
bump it only in a revision that such a service could not read or write (a revision that
adds an index keeps it), so an old image refuses the database instead of corrupting it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
)

SCHEMA_VERSION = 1

OUTCOMES = ("answered", "refused", "emergency")
REASONS = ("nao_respondeu", "dificil_de_entender", "informacao_errada", "outro")


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in, aware UTC datetimes out, on every backend (SQLite keeps
    no time zone): stored as naive UTC."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: pass an aware UTC datetime")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        moment: datetime = value
        return moment.replace(tzinfo=UTC)


metadata = MetaData()

answers = Table(
    "answers",
    metadata,
    Column("answer_id", String(32), primary_key=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("question", Text, nullable=False),
    Column("outcome", String(16), nullable=False),
    Column("cited", JSON, nullable=False),  # ["card-001", ...]
    Column("retrieval", JSON, nullable=False),  # [{"id": "card-001", "score": 0.52}, ...]
    Column("build_id", String(200), nullable=False),  # the active collection's name
    Index("ix_answers_created_at", "created_at"),
    Index("ix_answers_outcome_created_at", "outcome", "created_at"),
)

feedback = Table(
    "feedback",
    metadata,
    # One rating per answer: a second one (the patient changed their mind) replaces it.
    Column(
        "answer_id",
        String(32),
        ForeignKey("answers.answer_id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("helpful", Boolean, nullable=False),
    Column("reason", String(32), nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    Index("ix_feedback_helpful", "helpful"),  # revision 0002: the gaps report
)

schema_info = Table(
    "feedback_schema",
    metadata,
    Column("id", Integer, primary_key=True),  # always 1
    Column("version", Integer, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
)
