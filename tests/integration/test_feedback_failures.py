"""A full disk or a read-only volume under the feedback store never breaks /api/ask: the
answer is served, the write fails, is logged and counted in /metrics, a rating gets a
clean 503, and the store recovers when space or write access is back. Real gunicorn,
real model, SQLite on a real tmpfs."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import httpx
import pytest

from app.feedback.store import FeedbackStore
from evaluation.service import Service
from tests.polling import wait_until
from tests.unit.feedback.disk import fill, set_read_only, tmpfs
from tests.unit.feedback.helpers import feedback_service, rows, shared_index

pytestmark = [pytest.mark.model, pytest.mark.slow]

QUESTION = "devo tomar a levotiroxina com o estômago vazio?"


def ask(svc: Service) -> str:
    r = httpx.post(f"{svc.url}/api/ask", json={"question": QUESTION}, timeout=60)
    assert r.status_code == 200, r.text
    body = r.json()
    assert "[cite:card-001]" in body["answer"] and body["citations"][0]["id"] == "card-001"
    return str(body["answer_id"])


def rate(svc: Service, answer_id: str) -> httpx.Response:
    body = {"answer_id": answer_id, "helpful": False, "reason": "outro"}
    return httpx.post(f"{svc.url}/api/feedback", json=body, timeout=60)


def failures(svc: Service, what: str) -> float:
    text = httpx.get(f"{svc.url}/metrics", timeout=30).text
    found = re.search(rf'^rag_feedback_write_failures_total{{what="{what}"}} (\S+)$', text, re.M)
    return float(found.group(1)) if found else 0.0


def answer_ids(url: str) -> set[str]:
    return {r["answer_id"] for r in rows(url, "answers")}


def test_a_full_disk_never_breaks_ask(tmp_path_factory: pytest.TempPathFactory) -> None:
    with tmpfs("1m") as mount:
        url = f"sqlite:///{mount / 'feedback.db'}"
        svc = feedback_service(shared_index(tmp_path_factory), url)
        svc.start()
        try:
            stored = ask(svc)
            wait_until(lambda: stored in answer_ids(url), 30, what="the first answer written")
            filler = fill(mount)

            lost = ask(svc)  # still answered, with its citation
            wait_until(
                lambda: failures(svc, "answer") >= 1,
                30,
                what="the failed write counted in /metrics",
            )
            assert lost not in answer_ids(url)
            refused = rate(svc, stored)
            assert refused.status_code == 503
            assert refused.json()["error"]["code"] == "feedback_unavailable"
            assert failures(svc, "feedback") >= 1
            assert "not written" in svc.logs() and "database or disk is full" in svc.logs()

            filler.unlink()
            again = ask(svc)
            wait_until(lambda: again in answer_ids(url), 30, what="a write once space is back")
            assert rate(svc, stored).status_code == 201
        finally:
            svc.stop()


def test_a_read_only_volume_never_breaks_ask(tmp_path_factory: pytest.TempPathFactory) -> None:
    with tmpfs("4m") as mount:
        url = f"sqlite:///{mount / 'feedback.db'}"
        setup = FeedbackStore(url, 90)
        setup.create_schema(datetime.now(UTC))
        setup.dispose()
        set_read_only(mount, True)
        svc = feedback_service(shared_index(tmp_path_factory), url)
        svc.start()
        try:
            assert httpx.get(f"{svc.url}/readyz", timeout=30).status_code == 200
            lost = ask(svc)
            wait_until(
                lambda: failures(svc, "answer") >= 1,
                30,
                what="the failed write counted in /metrics",
            )
            # SQLite cannot even open a WAL database on a read-only volume: a clean 503
            r = rate(svc, lost)
            assert r.status_code == 503 and r.json()["error"]["code"] == "feedback_unavailable"
            assert "unable to open database file" in svc.logs()

            set_read_only(mount, False)
            again = ask(svc)
            wait_until(
                lambda: again in answer_ids(url), 30, what="a write once the volume is writable"
            )
            assert lost not in answer_ids(url)
            assert rate(svc, again).status_code == 201
        finally:
            svc.stop()
