"""Alembic's environment for the feedback store: runs the revisions on the connection
app.feedback.schema hands over (config.attributes["connection"]), inside the caller's
transaction, so the caller's lock (BEGIN IMMEDIATE on SQLite, an advisory lock on
PostgreSQL) covers the whole migration. There is no alembic.ini and no offline (--sql)
mode: run `python -m app.feedback.migrate`, which opens FEEDBACK_DATABASE_URL."""

from __future__ import annotations

from alembic import context

from app.feedback.schema import VERSION_TABLE
from app.feedback.tables import metadata


def run_migrations() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError(
            "the feedback migrations run on a connection: use `python -m app.feedback.migrate`"
        )
    context.configure(
        connection=connection,
        target_metadata=metadata,
        version_table=VERSION_TABLE,
        render_as_batch=True,  # SQLite alters a table by copying it
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


run_migrations()
