"""`ingest --clean` while the API answers: every request succeeds, and every worker picks
up the new build (its cards come from a per-process snapshot of the active build) with no
restart. Real Chroma server, real model, gunicorn with 2 workers over real HTTP."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.integration.conftest import ChromaServer
from tests.service import Service, ingest, service_env

pytestmark = [pytest.mark.model, pytest.mark.slow, pytest.mark.server]

LEVO = "devo tomar a levotiroxina com o estômago vazio?"
MARK = "Frase acrescentada para o teste de troca de índice."


def test_ingest_clean_under_traffic_fails_no_request_and_switches_every_worker(
    chroma_server: ChromaServer, corpus_copy: Path, tmp_path: Path
) -> None:
    store = {
        "CHROMA_MODE": "http",
        "CHROMA_HOST": "127.0.0.1",
        "CHROMA_PORT": str(chroma_server.port),
        "CORPUS_DIR": str(corpus_copy),
    }
    assert ingest(service_env(tmp_path / "unused", **store)).returncode == 0
    svc = Service(tmp_path / "unused", WEB_CONCURRENCY="2", **store)
    svc.start()
    statuses: list[int] = []
    stop = threading.Event()

    def traffic() -> None:
        with httpx.Client(base_url=svc.url, timeout=30) as client:
            while not stop.is_set():
                for path in ("/api/ask", "/api/search"):
                    statuses.append(client.post(path, json={"question": LEVO}).status_code)
                statuses.append(client.get("/api/cards/card-001").status_code)

    threads = [threading.Thread(target=traffic) for _ in range(4)]
    try:
        before = httpx.get(f"{svc.url}/readyz", timeout=30).json()["collection"]
        for t in threads:
            t.start()
        card = corpus_copy / "card-001.md"
        card.write_text(card.read_text(encoding="utf-8") + f"\n{MARK}\n", encoding="utf-8")
        done = ingest(service_env(tmp_path / "unused", **store), "--clean")
        assert done.returncode == 0, done.stderr
        # Every worker serves the new build's card text, without a restart.
        deadline, seen = time.monotonic() + 30, 0
        while time.monotonic() < deadline and seen < 20:
            text = httpx.get(f"{svc.url}/api/cards/card-001", timeout=30).json()["text"]
            seen = seen + 1 if text.endswith(MARK) else 0
        assert seen >= 20, "a worker still serves the old build"
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=60)
        after = httpx.get(f"{svc.url}/readyz", timeout=30).json()["collection"]
        svc.stop()
    assert after != before
    assert len(statuses) > 50 and set(statuses) == {200}, sorted(set(statuses))
