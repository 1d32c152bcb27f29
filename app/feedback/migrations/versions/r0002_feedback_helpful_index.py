"""An index on feedback.helpful, for the gaps report.

FeedbackStore.gap_rows reads two sets: refused answers (ix_answers_outcome_created_at)
and answers rated unhelpful. Without this index the second set is found by reading every
rating, or every answer of the window; with it, only the unhelpful ratings are read.
Old services (no migrations) still read and write a database at this revision: the
feedback_schema version stays 1, so rolling back the image needs no downgrade.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_index("ix_feedback_helpful", "feedback", ["helpful"])


def downgrade() -> None:
    op.drop_index("ix_feedback_helpful", table_name="feedback")
