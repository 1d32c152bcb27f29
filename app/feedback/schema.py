"""Schema migrations of the feedback store: Alembic, configured in code (no alembic.ini),
run on a connection the store opens (its lock held: see FeedbackStore.create_schema).

The revisions are in migrations/versions/; this code's head is `head()`. Where a
database stands (`state`):
- empty: none of the store's tables. The service creates it at head when it starts.
- stamped: FEEDBACK_VERSION_TABLE names its revision.
- unstamped: made before the store had migrations (feedback_schema.version 1, no version
  table). That is revision 0001 exactly; the first upgrade stamps it, then migrates.
A database behind head, or at a revision this code does not know (written by a newer
version), is never written to: the service refuses to start and names the command.

The service never upgrades a database that exists: an operator runs MIGRATE_COMMAND
(after a backup, deploy/UPGRADE.md), once, whatever the number of workers or replicas.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Connection, inspect, text

VERSION_TABLE = "feedback_alembic_version"  # not alembic_version: a shared PostgreSQL
LEGACY_REVISION = "0001"
STORE_TABLES = frozenset({"answers", "feedback", "feedback_schema"})
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
MIGRATE_COMMAND = "python -m app.feedback.migrate upgrade"
COMPOSE_MIGRATE_COMMAND = f"docker compose run --rm --no-deps api {MIGRATE_COMMAND}"


class SchemaMismatch(Exception):
    """The database is not at this code's head and the caller may not migrate it."""


@dataclass(frozen=True)
class SchemaState:
    revision: str | None  # None: an empty database
    stamped: bool  # the version table names the revision
    known: bool  # a revision of this code (False: a newer service wrote it)
    head: str

    @property
    def at_head(self) -> bool:
        return self.revision == self.head

    def describe(self) -> str:
        if self.revision is None:
            return f"empty (head is {self.head})"
        where = "" if self.stamped else ", made before migrations: not stamped yet"
        if self.at_head:
            return f"at revision {self.revision} (head{where})"
        if not self.known:
            return f"at {self.revision}, unknown to this service (head is {self.head})"
        return f"at revision {self.revision}{where}; behind head {self.head}"


def config(connection: Connection | None = None, now: datetime | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    cfg.attributes["now"] = now
    return cfg


@cache
def scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(config())


def head() -> str:
    heads = scripts().get_heads()
    if len(heads) != 1:
        raise RuntimeError(f"the feedback migrations must have one head, found {heads}")
    return heads[0]


def revisions() -> list[str]:
    """Every revision of this code, oldest first."""
    return [s.revision for s in reversed(list(scripts().walk_revisions()))]


def state(conn: Connection) -> SchemaState:
    tables = set(inspect(conn).get_table_names())
    known = set(revisions())
    if VERSION_TABLE in tables:
        context = MigrationContext.configure(conn, opts={"version_table": VERSION_TABLE})
        current = context.get_current_heads()
        if len(current) == 1:
            return SchemaState(current[0], True, current[0] in known, head())
        if current:
            return SchemaState(",".join(current), True, False, head())
        tables.discard(VERSION_TABLE)  # downgraded to base: empty again if nothing is left
    if "feedback_schema" in tables:
        version = conn.execute(text("SELECT version FROM feedback_schema")).scalar()
        if version == 1:
            return SchemaState(LEGACY_REVISION, False, True, head())
        return SchemaState(f"feedback_schema version {version}", False, False, head())
    if tables & STORE_TABLES:
        found = ", ".join(sorted(tables & STORE_TABLES))
        return SchemaState(f"tables {found} without feedback_schema", False, False, head())
    return SchemaState(None, False, True, head())


def _runnable(found: SchemaState) -> None:
    if found.revision is not None and not found.known:
        raise SchemaMismatch(
            f"{found.describe()}: written by a newer version of the service, or not a "
            "feedback database; run the service version that wrote it, or point "
            "FEEDBACK_DATABASE_URL at another database"
        )


def upgrade(conn: Connection, target: str = "head", now: datetime | None = None) -> SchemaState:
    """Migrate to `target` (stamping a database made before migrations first); returns
    the state before."""
    before = state(conn)
    _runnable(before)
    try:
        if before.revision is not None and not before.stamped:
            command.stamp(config(conn, now), before.revision)
        command.upgrade(config(conn, now), target)
    except CommandError as exc:  # an unknown target, or a target below the current one
        raise SchemaMismatch(f"upgrade to {target!r}: {exc}") from exc
    return before


def downgrade(conn: Connection, target: str) -> SchemaState:
    """Migrate down to `target`, a revision of this code (never "base": that would drop
    every table; drop the database instead). Returns the state before."""
    if target not in revisions():
        raise SchemaMismatch(
            f"downgrade to {target!r}: not a revision of this service ({', '.join(revisions())})"
        )
    before = state(conn)
    _runnable(before)
    if before.revision is None:
        raise SchemaMismatch("the database is empty: nothing to downgrade")
    try:
        if not before.stamped:
            command.stamp(config(conn), before.revision)
        command.downgrade(config(conn), target)
    except CommandError as exc:  # a target above the current revision
        raise SchemaMismatch(f"downgrade to {target!r}: {exc}") from exc
    return before


def ensure_head(conn: Connection, now: datetime) -> SchemaState:
    """At start: an empty database is created at head; one at head is left alone; any
    other raises SchemaMismatch, with the command to run when it is behind."""
    found = state(conn)
    if found.revision is None:
        upgrade(conn, "head", now)
        return found
    if found.at_head:
        return found
    _runnable(found)
    raise SchemaMismatch(
        f"{found.describe()}. Back it up, then migrate it, once: `{MIGRATE_COMMAND}` "
        f"(compose: `{COMPOSE_MIGRATE_COMMAND}`; Kubernetes: the feedback-migrate Job, "
        "deploy/k8s/)"
    )
