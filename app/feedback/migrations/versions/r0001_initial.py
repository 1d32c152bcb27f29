"""The schema of issue 16: answers, feedback, feedback_schema (version 1).

Exactly what FeedbackStore.create_schema made with metadata.create_all before the store
had migrations: such a database, found without a version table, is at this revision
(app.feedback.schema stamps it on the first upgrade). Frozen: never edit it, add a
revision instead.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import context, op

revision = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "answers",
        sa.Column("answer_id", sa.String(32), primary_key=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("cited", sa.JSON(), nullable=False),
        sa.Column("retrieval", sa.JSON(), nullable=False),
        sa.Column("build_id", sa.String(200), nullable=False),
    )
    op.create_index("ix_answers_created_at", "answers", ["created_at"])
    op.create_index("ix_answers_outcome_created_at", "answers", ["outcome", "created_at"])
    op.create_table(
        "feedback",
        sa.Column(
            "answer_id",
            sa.String(32),
            sa.ForeignKey("answers.answer_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("helpful", sa.Boolean(), nullable=False),
        sa.Column("reason", sa.String(32), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    schema = op.create_table(
        "feedback_schema",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    now: datetime = context.config.attributes.get("now") or datetime.now(UTC)
    created = now.astimezone(UTC).replace(tzinfo=None)  # naive UTC, as UTCDateTime stores
    op.bulk_insert(schema, [{"id": 1, "version": 1, "created_at": created}])


def downgrade() -> None:
    op.drop_table("feedback_schema")
    op.drop_table("feedback")
    op.drop_index("ix_answers_outcome_created_at", table_name="answers")
    op.drop_index("ix_answers_created_at", table_name="answers")
    op.drop_table("answers")
