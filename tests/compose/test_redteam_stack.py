"""Abuse against the real compose stack: the red-team corpus (tests/eval/redteam.yaml,
evaluation.redteam) over the published port, with the test-only poisoned card in the
index; then the edge guard's limits as the container gets them from the env file.

File order matters: the last test restarts the api with API_KEY and a rate limit.
Table of results: docs/reliability.md."""

from __future__ import annotations

import shutil
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from evaluation.redteam import POISONED, load_cases, run, summarize
from tests.compose.conftest import ROOT, Stack

pytestmark = [pytest.mark.compose, pytest.mark.slow]


def test_red_team_corpus_passes_against_the_stack(stack: Stack, tmp_path: Path) -> None:
    # The compose image bakes the bundled cards only; add the poisoned card (planted
    # instructions) through a mounted corpus, as an attacker who got a card in would.
    corpus = tmp_path / "cards"
    shutil.copytree(ROOT / "kb" / "cards", corpus)
    for card in POISONED.glob("*.md"):
        shutil.copy(card, corpus / card.name)
    corpus.chmod(0o755)
    for path in corpus.iterdir():
        path.chmod(0o644)
    res = stack.dc(
        "--profile", "maintenance", "run", "--rm", "-v", f"{corpus}:/corpus:ro",
        "-e", "CORPUS_DIR=/corpus", "ingest-clean", timeout=300, check=False,
    )  # fmt: skip
    assert res.returncode == 0, f"{res.stdout}\n{res.stderr}"
    time.sleep(2.5)  # past the API's 2 s cache of the active build

    with stack.client() as c:
        poisoned = c.get("/api/cards/card-900")
        assert poisoned.status_code == 200, poisoned.text
        hits = c.post("/api/search", json={"question": "tem alguma dica extra sobre levotiroxina?"})
        assert hits.status_code == 200, hits.text
    assert "card-900" in {r["id"] for r in hits.json()["results"]}, "poison not retrievable"

    start = time.monotonic()
    results = run(url=stack.base_url)  # every case, one request each, this stack's generator
    took = time.monotonic() - start
    cases = load_cases()
    assert len(results) == len(cases) >= 40
    assert Counter(r["category"] for r in results) == Counter(c.category for c in cases)
    failed = [
        f"{r['id']} ({r['category']}): {'; '.join(r['problems'])}"
        for r in results
        if not r["passed"]
    ]
    assert failed == [], summarize(results) + "\n" + "\n".join(failed)
    # The personal_data cases carry a CPF and a phone number: neither lands in the logs.
    logs = stack.dc("logs", "--no-color", "api", "chroma", timeout=60).stdout
    assert "/api/ask" in logs  # the access log is there...
    for needle in ("123.456.789-09", "98765-4321"):
        assert needle not in logs  # ...but never a question's text
    print(f"\n{len(results)} red-team cases passed against {stack.base_url} in {took:.1f} s")


def test_cors_is_closed_by_default(stack: Stack) -> None:
    with httpx.Client(base_url=stack.base_url, timeout=10) as c:
        res = c.options(
            "/api/ask",
            headers={
                "Origin": "https://evil.example",
                "Access-Control-Request-Method": "POST",
            },
        )
    assert "access-control-allow-origin" not in {k.lower() for k in res.headers}, res.headers


def test_edge_limits_from_the_env_file(stack: Stack) -> None:
    # Defaults (no setting): bodies over MAX_BODY_BYTES (16 KiB) and non-JSON bodies are
    # refused before the app parses them.
    with stack.client() as c:
        big = c.post("/api/ask", json={"question": "x" * 20_000})
        assert big.status_code == 413 and big.json()["error"]["code"] == "payload_too_large"
        form = c.post("/api/ask", content=b"question=oi", headers={"content-type": "text/plain"})
        assert form.status_code == 415, form.text

    # The operator's settings reach the container through the env file (APP_ENV_FILE).
    key = "test-key-" + str(time.time_ns())
    env_file = Path(stack.env["APP_ENV_FILE"])
    env_file.write_text(f"API_KEY={key}\nRATE_LIMIT_PER_MINUTE=5\n")
    up = stack.dc("up", "-d", "--wait", "--no-deps", "api", timeout=300, check=False)
    assert up.returncode == 0, f"{up.stderr}\n{stack.logs()}"

    question = {"question": "Posso tomar dipirona com febre?"}
    with stack.client() as c:
        assert c.get("/healthz").status_code == 200
        assert c.get("/readyz").status_code == 200  # the healthcheck needs no key
        for headers in ({}, {"X-API-Key": "wrong"}):
            res = c.post("/api/ask", json=question, headers=headers)
            assert res.status_code == 401, res.text
            assert res.json()["error"]["code"] == "unauthorized"
            assert key not in res.text
        # 5 per minute per worker, 2 workers: at most 10 of 16 quick requests get through.
        codes = []
        retry_after = []
        for _ in range(16):
            res = c.post("/api/search", json=question, headers={"X-API-Key": key})
            codes.append(res.status_code)
            if res.status_code == 429:
                assert res.json()["error"]["code"] == "rate_limited"
                retry_after.append(int(res.headers["Retry-After"]))
        assert set(codes) <= {200, 429}, codes
        assert 1 <= codes.count(200) <= 10 and codes.count(429) >= 6, codes
        assert all(s >= 1 for s in retry_after)
        assert c.get("/healthz").status_code == 200  # health stays open when limited
    print(f"\nrate limit: {Counter(codes)}; Retry-After {sorted(set(retry_after))} s")
