"""The real stack (chroma + ingest + api from compose.yaml), end to end. The tests run in
file order on one stack: ask, rebuild under load, store outage and recovery, restart."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from tests.compose.conftest import Stack
from tests.polling import wait_until

pytestmark = [pytest.mark.compose, pytest.mark.slow]

QUESTIONS = [
    "Posso tomar dipirona com febre?",
    "Quanto paracetamol posso tomar por dia?",
    "O que fazer em caso de pressão alta?",
]


def ask(client: httpx.Client, question: str) -> httpx.Response:
    return client.post("/api/ask", json={"question": question})


def test_ask_returns_a_cited_answer(stack: Stack) -> None:
    with stack.client() as c:
        res = ask(c, QUESTIONS[0])
    assert res.status_code == 200, res.text
    body = res.json()
    assert body["refused"] is False, body
    assert body["answer"].strip()
    assert body["citations"], body
    cited = {cit["id"] for cit in body["citations"]}
    assert all(f"[cite:{cid}]" in body["answer"] for cid in cited), body
    assert cited <= {hit["id"] for hit in body["retrieval"]}
    assert all(cit["title"] for cit in body["citations"])


def test_admin_is_disabled_without_an_admin_key(stack: Stack) -> None:
    """This stack runs with ADMIN_API_KEY unset: /api/admin answers 404 whatever is sent."""
    with stack.client() as c:
        for headers in ({}, {"x-admin-key": "any-key-at-all-0123456789"}):
            res = c.get("/api/admin/gaps", headers=headers)
            assert res.status_code == 404, res.text
            assert res.json()["error"]["code"] == "not_found", res.text
            assert "clusters" not in res.text


def test_ingest_clean_keeps_serving(stack: Stack) -> None:
    before = stack.readyz().json()
    assert before["ready"] is True, before
    results: list[tuple[int, str]] = []
    errors: list[str] = []
    stop = threading.Event()

    def client_loop() -> None:
        with stack.client() as c:
            i = 0
            deadline = time.monotonic() + 600  # bounded even if the rebuild hangs
            while not stop.is_set() and time.monotonic() < deadline:
                try:
                    res = ask(c, QUESTIONS[i % len(QUESTIONS)])
                    results.append((res.status_code, res.json().get("answer", "")))
                except (httpx.HTTPError, ValueError) as exc:
                    errors.append(repr(exc))
                i += 1

    worker = threading.Thread(target=client_loop)
    worker.start()
    try:
        wait_until(lambda: results or errors, 60, interval=0.1, what="the first answer")
        run = stack.dc(
            "--profile", "maintenance", "run", "--rm", "ingest-clean", timeout=600, check=False
        )
        time.sleep(1.0)
    finally:
        stop.set()
        worker.join(timeout=120)
    assert run.returncode == 0, f"ingest-clean exited {run.returncode}:\n{run.stdout}\n{run.stderr}"
    after = stack.readyz().json()
    switch = f"{before['collection']} -> {after['collection']}"
    print(f"\n{len(results)} requests during ingest-clean; {switch}")
    assert not errors, errors[:5]
    assert len(results) >= 5
    failed = [code for code, _ in results if code != 200]
    empty = [1 for code, answer in results if code == 200 and not answer.strip()]
    assert failed == [], f"{len(failed)} failed requests: {failed[:10]}"
    assert empty == []
    assert after["ready"] is True
    assert after["collection"] != before["collection"], "ingest-clean did not switch the index"


def test_store_outage_gives_503_then_recovers_without_restart(stack: Stack) -> None:
    api_before = stack.inspect("api")
    stack.dc("stop", "chroma", timeout=120)
    try:
        deadline = time.monotonic() + 30
        while True:
            ready = stack.readyz()
            if ready.status_code == 503 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert ready.status_code == 503, ready.text
        assert ready.json()["ready"] is False
        assert ready.json()["error"]["code"]

        with stack.client() as c:
            res = ask(c, QUESTIONS[1])
        assert res.status_code == 503, res.text
        assert res.headers["content-type"].startswith("application/json")
        assert res.json()["error"]["code"] == "store_unavailable", res.json()
    finally:
        stack.dc("start", "chroma", timeout=120)
    waited = stack.wait_healthy("chroma", timeout=60)
    start = time.monotonic()
    while time.monotonic() - start < 15:
        ready = stack.readyz()
        if ready.status_code == 200:
            break
        time.sleep(0.5)
    recovered_s = time.monotonic() - start
    print(f"\nchroma healthy {waited:.1f} s after start; API ready {recovered_s:.1f} s after that")
    assert ready.status_code == 200, f"API not ready 15 s after chroma came back: {ready.text}"
    with stack.client() as c:
        res = ask(c, QUESTIONS[1])
    assert res.status_code == 200, res.text
    assert res.json()["citations"]
    api_after = stack.inspect("api")
    assert api_after["State"]["StartedAt"] == api_before["State"]["StartedAt"], "api restarted"
    assert api_after["RestartCount"] == api_before["RestartCount"]


def test_index_survives_a_full_restart(stack: Stack) -> None:
    before = stack.readyz().json()
    assert before["ready"] is True
    stack.dc("down", timeout=180)  # containers and network go; the named volume stays
    stack.dc("up", "-d", "--wait", "api", timeout=600)
    after = stack.readyz().json()
    assert after["ready"] is True, after
    # Same collection: ingest found the persisted index current and did not rebuild it.
    assert after["collection"] == before["collection"]
    assert after["built_at"] == before["built_at"]
    with stack.client() as c:
        res = ask(c, QUESTIONS[0])
    assert res.status_code == 200 and res.json()["citations"], res.text
