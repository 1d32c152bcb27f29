"""The served app and a feedback database made before migrations (issue 28): gunicorn
refuses to start and says what to run; after that command, it starts, and a rating of an
answer recorded before the migration is accepted. Real gunicorn (2 workers), real model,
real index, a real SQLite file."""

from __future__ import annotations

import pytest

from app.feedback.schema import MIGRATE_COMMAND
from tests.unit.feedback import legacy
from tests.unit.feedback.helpers import feedback_service, rows, shared_index
from tests.unit.feedback.test_migrations import migrate, snapshot

pytestmark = [pytest.mark.model, pytest.mark.slow]


def test_gunicorn_refuses_an_old_schema_until_it_is_migrated(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    import httpx

    url = f"sqlite:///{tmp_path_factory.mktemp('feedback-migrate') / 'feedback.db'}"
    legacy.create_schema(url)
    legacy.add_rows(url, 6)
    before = snapshot(url)
    svc = feedback_service(shared_index(tmp_path_factory), url, WEB_CONCURRENCY="2")
    with pytest.raises(RuntimeError, match="gunicorn exited early") as refused:
        svc.start()
    logs = str(refused.value)
    assert f"feedback store {url} is at revision 0001" in logs
    assert f"`{MIGRATE_COMMAND}`" in logs and "Worker failed to boot" in logs
    assert snapshot(url) == before

    done = migrate(url, "upgrade")
    assert done.returncode == 0, done.stderr
    svc.start()
    try:
        assert httpx.get(f"{svc.url}/readyz", timeout=30).status_code == 200
        old = f"{1:032x}"  # recorded in the old schema, rated again now
        r = httpx.post(
            f"{svc.url}/api/feedback",
            json={"answer_id": old, "helpful": False, "reason": "outro"},
            timeout=60,
        )
        assert r.status_code == 201, r.text
        ask = httpx.post(
            f"{svc.url}/api/ask", json={"question": "posso tomar dipirona?"}, timeout=60
        )
        assert ask.status_code == 200
    finally:
        svc.stop()
    rated = {r["answer_id"]: r["reason"] for r in rows(url, "feedback")}
    assert rated[f"{1:032x}"] == "outro" and len(rated) == 6
