"""FEEDBACK_DATABASE_URL: an SQLAlchemy URL naming SQLite (a file) or PostgreSQL.

In core, not app/feedback: Settings checks the URL when it is read, and core never
imports the layers above it (tests/unit/test_architecture.py)."""

from __future__ import annotations

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

SQLITE_DRIVERS = ("sqlite", "sqlite+pysqlite")
POSTGRES_DRIVERS = ("postgresql", "postgresql+psycopg")


class SecretSettingError(Exception):
    """A setting that holds a secret (a database URL with its password, an admin key) is
    invalid. Deliberately not a ValueError: pydantic wraps those in a ValidationError
    that repeats the input, secret included; this one carries only our message."""


def parse_database_url(raw: str) -> URL:
    """The URL to connect with (PostgreSQL always through psycopg 3). Raises ValueError
    with a message naming FEEDBACK_DATABASE_URL; the password is never repeated."""
    try:
        url = make_url(raw)
    except ArgumentError as exc:
        raise ValueError(
            "FEEDBACK_DATABASE_URL is not a database URL; use sqlite:////path/feedback.db "
            "or postgresql+psycopg://user:password@host:5432/dbname"
        ) from exc
    shown = url.render_as_string(hide_password=True)
    if url.drivername in SQLITE_DRIVERS:
        if not url.database or url.database == ":memory:" or url.database.startswith("file:"):
            raise ValueError(
                f"FEEDBACK_DATABASE_URL {shown!r} must name a SQLite file "
                "(sqlite:////abs/path/feedback.db): an in-memory database is not shared "
                "between workers and loses everything on restart"
            )
        return url
    if url.drivername in POSTGRES_DRIVERS:
        if not url.database:
            raise ValueError(f"FEEDBACK_DATABASE_URL {shown!r} must name a database")
        return url.set(drivername="postgresql+psycopg")
    raise ValueError(
        f"FEEDBACK_DATABASE_URL {shown!r}: unsupported database {url.drivername!r}; "
        "use sqlite:///... or postgresql+psycopg://... (psycopg 3)"
    )


def describe(url: URL) -> str:
    """The URL without its password, for messages and logs."""
    return url.render_as_string(hide_password=True)
