"""The feedback store on SQLite and on a real PostgreSQL server: same tests, both."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import inspect, select, update

from app.feedback.store import AnswerRecord, FeedbackStore, FeedbackStoreError
from app.feedback.tables import SCHEMA_VERSION, answers, feedback, schema_info

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def record(
    n: int, *, age_days: float = 0, outcome: str = "answered", question: str | None = None
) -> AnswerRecord:
    return AnswerRecord(
        answer_id=f"{n:032x}",
        created_at=NOW - timedelta(days=age_days),
        question=f"pergunta {n}" if question is None else question,
        outcome=outcome,
        cited=["card-001"] if outcome == "answered" else [],
        retrieval=[("card-001", 0.5248), ("card-019", 0.4849)],
        build_id="cards-v3-20261130T002536897505",
    )


def ready(store: FeedbackStore) -> FeedbackStore:
    store.create_schema(NOW)
    return store


def test_schema_is_created_once_and_records_its_version(store: FeedbackStore) -> None:
    store.create_schema(NOW)
    store.create_schema(NOW)  # idempotent: a restart, or a second worker
    assert store.schema_version() == SCHEMA_VERSION
    tables = set(inspect(store.engine).get_table_names())
    assert {"answers", "feedback", "feedback_schema"} <= tables


def test_a_schema_written_by_a_newer_version_is_refused(store: FeedbackStore) -> None:
    ready(store)
    with store.engine.begin() as conn:
        conn.execute(update(schema_info).values(version=SCHEMA_VERSION + 1))
    with pytest.raises(FeedbackStoreError, match=f"schema version {SCHEMA_VERSION + 1}"):
        store.create_schema(NOW)


def test_no_column_can_hold_an_address_or_the_raw_question(store: FeedbackStore) -> None:
    ready(store)
    columns = {
        table: {c["name"] for c in inspect(store.engine).get_columns(table)}
        for table in ("answers", "feedback")
    }
    assert columns == {
        "answers": {
            "answer_id",
            "created_at",
            "question",
            "outcome",
            "cited",
            "retrieval",
            "build_id",
        },
        "feedback": {"answer_id", "helpful", "reason", "created_at"},
    }


def test_an_answer_and_its_rating_are_stored(store: FeedbackStore) -> None:
    ready(store).record_answers([record(1, outcome="answered")])
    assert store.add_feedback(f"{1:032x}", False, "dificil_de_entender", NOW)
    with store.engine.connect() as conn:
        row = conn.execute(select(answers)).one()
        rating = conn.execute(select(feedback)).one()
    assert row.question == "pergunta 1" and row.outcome == "answered"
    assert row.cited == ["card-001"]
    assert row.retrieval == [
        {"id": "card-001", "score": 0.5248},
        {"id": "card-019", "score": 0.4849},
    ]
    assert row.build_id == "cards-v3-20261130T002536897505"
    assert row.created_at == NOW
    assert (rating.answer_id, rating.helpful, rating.reason) == (
        f"{1:032x}",
        False,
        "dificil_de_entender",
    )


def test_a_second_rating_replaces_the_first(store: FeedbackStore) -> None:
    ready(store).record_answers([record(1)])
    assert store.add_feedback(f"{1:032x}", False, "outro", NOW)
    assert store.add_feedback(f"{1:032x}", True, None, NOW + timedelta(minutes=1))
    with store.engine.connect() as conn:
        rows = conn.execute(select(feedback)).all()
    assert [(r.helpful, r.reason) for r in rows] == [(True, None)]


def test_a_rating_for_an_unknown_answer_is_not_stored(store: FeedbackStore) -> None:
    ready(store).record_answers([record(1)])
    assert not store.add_feedback(f"{2:032x}", True, None, NOW)
    with store.engine.connect() as conn:
        assert conn.execute(select(feedback)).all() == []


def test_retention_purge_deletes_old_answers_and_their_ratings(store: FeedbackStore) -> None:
    ready(store).record_answers(
        [record(1, age_days=91), record(2, age_days=89.9), record(3, age_days=1)]
    )
    for n in (1, 2, 3):
        with store.engine.begin() as conn:  # rated when each was fresh
            conn.execute(
                feedback.insert().values(
                    answer_id=f"{n:032x}", helpful=False, reason=None, created_at=NOW
                )
            )
    assert store.purge(NOW) == 1
    assert store.purge(NOW) == 0
    with store.engine.connect() as conn:
        kept = sorted(conn.execute(select(answers.c.answer_id)).scalars())
        rated = sorted(conn.execute(select(feedback.c.answer_id)).scalars())
    assert kept == rated == [f"{2:032x}", f"{3:032x}"]


def test_an_expired_answer_takes_no_rating_even_before_the_purge(store: FeedbackStore) -> None:
    ready(store).record_answers([record(1, age_days=90.01), record(2, age_days=89.99)])
    assert not store.answer_known(f"{1:032x}", NOW)
    assert not store.add_feedback(f"{1:032x}", False, None, NOW)
    assert store.add_feedback(f"{2:032x}", False, None, NOW)


def test_gap_rows_are_refused_or_unhelpful_questions_in_the_window(store: FeedbackStore) -> None:
    ready(store).record_answers(
        [
            record(1, outcome="refused", question="ozempic emagrece?"),
            record(2, outcome="answered", question="levotiroxina em jejum?"),
            record(3, outcome="answered", question="insulina na geladeira?"),
            record(4, outcome="refused", question="capital da australia?", age_days=40),
            record(5, outcome="emergency", question="dor no peito"),
            record(6, outcome="refused", question=""),  # only personal data: never reported
        ]
    )
    store.add_feedback(f"{2:032x}", False, "nao_respondeu", NOW)
    store.add_feedback(f"{3:032x}", True, None, NOW)
    rows = store.gap_rows(NOW, days=30, limit=100)
    assert {(r.question, r.outcome, r.helpful, r.reason) for r in rows} == {
        ("ozempic emagrece?", "refused", None, None),
        ("levotiroxina em jejum?", "answered", False, "nao_respondeu"),
    }
    assert len(store.gap_rows(NOW, days=90, limit=100)) == 3
    assert len(store.gap_rows(NOW, days=90, limit=2)) == 2


def test_an_unreachable_database_raises_a_named_error_without_the_password(tmp_path: Path) -> None:
    url = f"postgresql+psycopg://app:s3cr3t-pw@/feedback?host={tmp_path}&port=1"
    with pytest.raises(FeedbackStoreError) as caught:
        FeedbackStore(url, 90).create_schema(NOW)
    message = str(caught.value)
    assert "creating the schema failed" in message and "OperationalError" in message
    assert "s3cr3t-pw" not in message and "***" in message


def test_a_sqlite_path_that_cannot_be_created_raises_a_named_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("x")
    with pytest.raises(FeedbackStoreError, match="opening the database failed"):
        FeedbackStore(f"sqlite:///{blocker}/feedback.db", 90).create_schema(NOW)
