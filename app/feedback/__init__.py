"""Patient feedback and the report of unanswered questions for the card authors.

Every answer is recorded (the stripped question, outcome, cited cards, retrieval scores,
build) by a background writer, so /api/ask never waits for the database; patients rate
an answer with POST /api/feedback; refused and unhelpful questions are grouped by
similarity for `make gaps` and GET /api/admin/gaps.

    url.py       FEEDBACK_DATABASE_URL: which databases are supported
    tables.py    the schema (SQLAlchemy Core)
    schema.py    its migrations (Alembic, migrations/): where a database stands, upgrade
    migrate.py   `python -m app.feedback.migrate upgrade|current|downgrade|history`
    store.py     reads and writes, SQLite (WAL) or PostgreSQL
    ids.py       answer ids (time-ordered, 32 hex characters)
    recorder.py  the bounded queue and background writer for answer records
    metrics.py   Prometheus counters (write failures, drops, records, ratings)
    service.py   one per process: store + recorder; the hook /api/ask calls
    gaps.py      grouping by embedding similarity; the `make gaps` command
"""
