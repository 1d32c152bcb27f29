"""Migrate the feedback database named by FEEDBACK_DATABASE_URL (issue 28).

    python -m app.feedback.migrate current        where it stands; exit 1 unless at head
    python -m app.feedback.migrate upgrade        to head (an empty database is created)
    python -m app.feedback.migrate upgrade 0002   to one revision
    python -m app.feedback.migrate downgrade 0001 back to an older revision
    python -m app.feedback.migrate history        the revisions of this code

The service checks the revision when it starts and refuses one behind or ahead of its
code; it never migrates an existing database itself. Run `upgrade` once per database
(not per worker or replica), after a backup: `make feedback-migrate`, `docker compose
run --rm --no-deps api python -m app.feedback.migrate upgrade`, or the feedback-migrate
Job in deploy/k8s/. One transaction: a failed migration changes nothing, and two runs
at once are serialized (BEGIN IMMEDIATE on SQLite, an advisory lock on PostgreSQL).
"""

from __future__ import annotations

import argparse
import logging
import sys

from app.core.config import get_settings
from app.core.database_url import describe
from app.core.logging import setup_logging
from app.feedback import schema
from app.feedback.recorder import utcnow
from app.feedback.store import FeedbackStore, FeedbackStoreError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m app.feedback.migrate",
        description="Schema migrations of the feedback database (FEEDBACK_DATABASE_URL).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("current", help="print the database's revision; exit 1 unless at head")
    up = commands.add_parser("upgrade", help="migrate up (default: to head)")
    up.add_argument("revision", nargs="?", default="head")
    down = commands.add_parser("downgrade", help="migrate down to an older revision")
    down.add_argument("revision", help=f"one of {', '.join(schema.revisions())}")
    commands.add_parser("history", help="list the revisions of this code, oldest first")
    return parser


def run(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "history":
        for script in reversed(list(schema.scripts().walk_revisions())):
            head = " (head)" if script.revision == schema.head() else ""
            print(f"{script.revision}{head}  {(script.doc or '').strip()}")
        return 0
    settings = get_settings()
    setup_logging("WARNING")
    steps = logging.getLogger("alembic.runtime.migration")  # "Running upgrade 0001 -> 0002"
    steps.setLevel(logging.INFO)
    steps.addFilter(lambda record: record.getMessage().startswith("Running "))
    store = FeedbackStore(
        settings.feedback_database_url.get_secret_value(), settings.feedback_retention_days
    )
    name = describe(store.url)
    try:
        if args.command == "current":
            found = store.schema_state()
            print(f"feedback store {name}: {found.describe()}")
            return 0 if found.at_head else 1
        if args.command == "upgrade":
            before = store.upgrade(args.revision, utcnow())
        else:
            before = store.downgrade(args.revision)
        after = store.schema_state()
    except FeedbackStoreError as exc:
        print(f"migrate: {exc}", file=sys.stderr)
        return 1
    finally:
        store.dispose()
    was = before.revision or "empty"
    print(f"feedback store {name}: {args.command} from {was}; now {after.describe()}")
    return 0


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
