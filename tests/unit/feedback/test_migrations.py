"""Schema migrations of the feedback store (issue 28), on SQLite files and a real
PostgreSQL server: a fresh database is created at head; one made before migrations, with
rows, stops the service with the command to run, is migrated by that command and keeps
its rows; an unknown revision is refused; downgrade and upgrade round-trip."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import MetaData, create_engine, event, inspect, text

from app.core.config import Settings
from app.core.database_url import describe, parse_database_url
from app.feedback import schema
from app.feedback.service import FeedbackService
from app.feedback.store import AnswerRecord, FeedbackSchemaError, FeedbackStore
from app.feedback.tables import SCHEMA_VERSION, metadata
from tests.unit.feedback import legacy
from tests.unit.feedback.helpers import rows
from tests.unit.feedback.postgres import PostgresServer

ROOT = Path(__file__).resolve().parents[3]
NOW = legacy.now_utc()
HEAD = "0002"


def migrate(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The documented command, as an operator runs it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FEEDBACK_DATABASE_URL": url}
    return subprocess.run(
        [sys.executable, "-m", "app.feedback.migrate", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def differences(url: str, target: MetaData) -> list[Any]:
    """What alembic's autogenerate would change to make the database match `target`."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(
                conn, opts={"compare_type": True, "version_table": schema.VERSION_TABLE}
            )
            return list(compare_metadata(context, target))
    finally:
        engine.dispose()


def indexes(url: str, table: str) -> set[str]:
    engine = create_engine(url)
    try:
        return {str(i["name"]) for i in inspect(engine).get_indexes(table)}
    finally:
        engine.dispose()


def table_names(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def snapshot(url: str) -> dict[str, list[dict[str, Any]]]:
    return {
        table: sorted(rows(url, table), key=lambda r: str(r["answer_id"]))
        for table in ("answers", "feedback")
    }


def legacy_database(url: str, n: int = 30) -> dict[str, list[dict[str, Any]]]:
    legacy.create_schema(url)
    legacy.add_rows(url, n)
    return snapshot(url)


def test_the_code_has_one_head_and_it_is_the_newest_revision() -> None:
    assert schema.revisions() == ["0001", HEAD]
    assert schema.head() == HEAD


def test_a_fresh_database_is_created_at_head(store: FeedbackStore) -> None:
    store.create_schema(NOW)
    store.create_schema(NOW)  # a second worker, a restart
    found = store.schema_state()
    assert (found.revision, found.stamped, found.at_head) == (HEAD, True, True)
    assert store.schema_version() == SCHEMA_VERSION
    url = store.url.render_as_string(hide_password=False)
    assert {"answers", "feedback", "feedback_schema", schema.VERSION_TABLE} <= table_names(url)
    assert "ix_feedback_helpful" in indexes(url, "feedback")


def test_head_makes_exactly_the_tables_of_tables_py(database_url: str) -> None:
    FeedbackStore(database_url, 90).upgrade()
    assert differences(database_url, metadata) == []


def test_revision_0001_is_the_schema_made_before_migrations(
    database_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A database written by the code of issue 16 and one migrated to 0001 are the same:
    neither differs from the frozen legacy tables (and head does: it adds an index)."""
    legacy.create_schema(database_url)
    assert differences(database_url, legacy.metadata) == []
    if database_url.startswith("sqlite"):
        other = f"sqlite:///{tmp_path / 'at-0001.db'}"
    else:
        server: PostgresServer = request.getfixturevalue("postgres")
        other = server.url(server.new_database())
    FeedbackStore(other, 90).upgrade("0001")
    assert differences(other, legacy.metadata) == []
    assert rows(other, "feedback_schema")[0]["version"] == 1
    assert [d[0] for d in differences(other, metadata)] == ["add_index"]


def test_a_database_made_before_migrations_is_at_revision_0001(database_url: str) -> None:
    legacy_database(database_url, 3)
    found = FeedbackStore(database_url, 90).schema_state()
    assert (found.revision, found.stamped, found.known, found.at_head) == (
        "0001",
        False,
        True,
        False,
    )


def test_an_old_database_with_rows_stops_the_service_until_migrated(database_url: str) -> None:
    before = legacy_database(database_url)
    settings = Settings(_env_file=None, feedback_database_url=database_url)  # type: ignore[call-arg]
    service = FeedbackService(settings)
    with pytest.raises(FeedbackSchemaError) as refused:
        service.start()
    message = str(refused.value)
    assert (
        f"feedback store {describe(parse_database_url(database_url))} is at revision 0001"
        in message
    )
    assert "behind head 0002" in message and f"`{schema.MIGRATE_COMMAND}`" in message
    assert service.recorder._thread is None  # the writer never started
    assert schema.VERSION_TABLE not in table_names(database_url)  # start wrote nothing
    assert snapshot(database_url) == before

    current = migrate(database_url, "current")
    assert current.returncode == 1 and "behind head 0002" in current.stdout
    done = migrate(database_url, "upgrade")
    assert done.returncode == 0, done.stderr
    assert "upgrade from 0001; now at revision 0002 (head)" in done.stdout
    assert "Running upgrade 0001 -> 0002" in done.stderr
    assert migrate(database_url, "current").returncode == 0

    assert snapshot(database_url) == before
    assert "ix_feedback_helpful" in indexes(database_url, "feedback")
    service.start()  # now it starts, and works on the old rows and new ones
    try:
        store = service.store
        assert store.add_feedback(f"{1:032x}", False, "outro", NOW + timedelta(days=1))
        store.record_answers([answer(1000)])
        gaps = {r.question for r in store.gap_rows(NOW + timedelta(days=1), 30, 100)}
        assert gaps == {f"pergunta antiga {i}" for i in range(30) if i % 3 == 0 or i % 2} | {
            "pergunta nova"
        }
    finally:
        service.stop()
        service.store.dispose()


def test_the_refusal_names_the_database_without_its_password(
    postgres: PostgresServer,
) -> None:
    name = postgres.new_database()
    url = postgres.url(name).replace("postgres@", "postgres:s3cr3t-pw@")  # trust: ignored
    legacy.create_schema(url)
    with pytest.raises(FeedbackSchemaError) as refused:
        FeedbackStore(url, 90).create_schema(NOW)
    message = str(refused.value)
    assert "s3cr3t-pw" not in message and f"postgres:***@/{name}" in message
    done = migrate(url, "upgrade")
    assert done.returncode == 0 and "s3cr3t-pw" not in done.stdout + done.stderr


def test_an_unknown_revision_is_refused(store: FeedbackStore) -> None:
    store.create_schema(NOW)
    with store.engine.begin() as conn:
        conn.execute(text(f"UPDATE {schema.VERSION_TABLE} SET version_num = '0099'"))
    with pytest.raises(FeedbackSchemaError, match="at 0099, unknown to this service") as caught:
        store.create_schema(NOW)
    assert "written by a newer version" in str(caught.value)
    url = store.url.render_as_string(hide_password=False)
    for args in (["upgrade"], ["downgrade", "0001"], ["current"]):
        done = migrate(url, *args)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
    assert rows(url, schema.VERSION_TABLE) == [{"version_num": "0099"}]


def test_a_newer_legacy_schema_version_is_refused(database_url: str) -> None:
    legacy.create_schema(database_url)
    engine = create_engine(database_url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE feedback_schema SET version = 2"))
    engine.dispose()
    store = FeedbackStore(database_url, 90)
    with pytest.raises(FeedbackSchemaError, match="feedback_schema version 2, unknown"):
        store.create_schema(NOW)
    with pytest.raises(FeedbackSchemaError, match="feedback_schema version 2, unknown"):
        store.upgrade()
    store.dispose()


def test_downgrade_and_upgrade_keep_the_rows(database_url: str) -> None:
    before = legacy_database(database_url)
    store = FeedbackStore(database_url, 90)
    store.upgrade()
    done = migrate(database_url, "downgrade", "0001")
    assert done.returncode == 0, done.stderr
    assert store.schema_state().revision == "0001"
    assert "ix_feedback_helpful" not in indexes(database_url, "feedback")
    assert snapshot(database_url) == before
    legacy.create_schema(database_url)  # the previous image still runs on it
    with pytest.raises(FeedbackSchemaError, match="behind head 0002"):
        store.create_schema(NOW)
    store.upgrade()
    assert store.schema_state().at_head and snapshot(database_url) == before
    assert migrate(database_url, "downgrade", "base").returncode == 1  # never drops it all
    assert store.schema_state().at_head
    store.dispose()


def test_a_failed_migration_changes_nothing(database_url: str) -> None:
    """The stamp and the upgrade share one transaction: when the upgrade fails, the
    database is still unstamped at 0001."""
    legacy_database(database_url, 3)
    engine = create_engine(database_url)
    with engine.begin() as conn:  # the name 0002 needs, taken on another table
        conn.execute(text("CREATE INDEX ix_feedback_helpful ON answers (build_id)"))
    engine.dispose()
    done = migrate(database_url, "upgrade")
    assert done.returncode == 1 and "upgrading the schema failed" in done.stderr
    assert schema.VERSION_TABLE not in table_names(database_url)
    found = FeedbackStore(database_url, 90).schema_state()
    assert (found.revision, found.stamped) == ("0001", False)


def test_several_migrations_at_once_are_serialized(database_url: str) -> None:
    before = legacy_database(database_url, 5)
    with ThreadPoolExecutor(3) as pool:
        runs = list(pool.map(lambda _: migrate(database_url, "upgrade"), range(3)))
    assert [r.returncode for r in runs] == [0, 0, 0], [r.stderr for r in runs]
    assert sum("upgrade from 0001" in r.stdout for r in runs) == 1
    assert sum("upgrade from 0002" in r.stdout for r in runs) == 2
    assert snapshot(database_url) == before


def test_the_gaps_query_reads_the_new_index(tmp_path: Path) -> None:
    store = FeedbackStore(f"sqlite:///{tmp_path / 'feedback.db'}", 90)
    store.create_schema(NOW)
    store.record_answers([answer(i) for i in range(50)])
    statements: list[tuple[str, Any]] = []

    def capture(_conn: Any, _cursor: Any, statement: str, params: Any, *_: Any) -> None:
        statements.append((statement, params))

    event.listen(store.engine, "before_cursor_execute", capture)
    store.gap_rows(NOW, 30, 100)
    event.remove(store.engine, "before_cursor_execute", capture)
    sql, params = statements[-1]
    with store.engine.connect() as conn:
        plan = " | ".join(
            str(r[3]) for r in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}", params)
        )
    assert "USING INDEX ix_feedback_helpful" in plan, plan
    assert "USING INDEX ix_answers_outcome_created_at" in plan, plan
    store.dispose()


def answer(n: int) -> AnswerRecord:
    return AnswerRecord(
        answer_id=f"{n:032x}",
        created_at=NOW,
        question="pergunta nova" if n >= 1000 else f"pergunta {n}",
        outcome="refused",
        cited=[],
        retrieval=[("card-001", 0.3)],
        build_id="cards-v5-new",
    )
