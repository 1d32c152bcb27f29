"""The feedback store as it was before it had migrations (issue 16's code, frozen): its
tables and its create_schema, to make the databases that a deployed service holds today.
Never change it: it stands for databases that already exist."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    select,
)

VERSION = 1

metadata = MetaData()
answers = Table(
    "answers",
    metadata,
    Column("answer_id", String(32), primary_key=True),
    Column("created_at", DateTime, nullable=False),
    Column("question", Text, nullable=False),
    Column("outcome", String(16), nullable=False),
    Column("cited", JSON, nullable=False),
    Column("retrieval", JSON, nullable=False),
    Column("build_id", String(200), nullable=False),
    Index("ix_answers_created_at", "created_at"),
    Index("ix_answers_outcome_created_at", "outcome", "created_at"),
)
feedback = Table(
    "feedback",
    metadata,
    Column(
        "answer_id",
        String(32),
        ForeignKey("answers.answer_id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("helpful", Boolean, nullable=False),
    Column("reason", String(32), nullable=True),
    Column("created_at", DateTime, nullable=False),
)
schema_info = Table(
    "feedback_schema",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("version", Integer, nullable=False),
    Column("created_at", DateTime, nullable=False),
)

# Naive UTC, as the store keeps it; a day old, so well inside the retention period when a
# service started on such a database purges (that uses the real clock).
NOW = (datetime.now(UTC) - timedelta(days=1)).replace(tzinfo=None, microsecond=0)


def create_schema(url: str) -> None:
    """What FeedbackStore.create_schema did: create_all, then the version row."""
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            metadata.create_all(conn)
            found = conn.execute(select(schema_info.c.version)).scalar()
            if found is None:
                conn.execute(schema_info.insert().values(id=1, version=VERSION, created_at=NOW))
            elif found != VERSION:
                raise RuntimeError(f"schema version {found}")
    finally:
        engine.dispose()


def add_rows(url: str, n: int) -> None:
    """n answers, every third refused, every answer rated (one in two unhelpful)."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            for i in range(n):
                answer_id = f"{i:032x}"
                conn.execute(
                    answers.insert().values(
                        answer_id=answer_id,
                        created_at=NOW,
                        question=f"pergunta antiga {i}",
                        outcome="refused" if i % 3 == 0 else "answered",
                        cited=[] if i % 3 == 0 else ["card-001"],
                        retrieval=[{"id": "card-001", "score": 0.5}],
                        build_id="cards-v5-legacy",
                    )
                )
                conn.execute(
                    feedback.insert().values(
                        answer_id=answer_id,
                        helpful=i % 2 == 0,
                        reason=None if i % 2 == 0 else "nao_respondeu",
                        created_at=NOW,
                    )
                )
    finally:
        engine.dispose()


def now_utc() -> datetime:
    return NOW.replace(tzinfo=UTC)
