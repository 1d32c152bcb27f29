"""A load run with feedback mixed in: 32 concurrent clients against a 2-worker service,
each asking (answered and refused questions) and rating every answer at once. Zero
non-2xx responses, and every rating is stored, whichever worker took it."""

from __future__ import annotations

import re
import statistics
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from evaluation.service import Service
from tests.polling import wait_until
from tests.unit.feedback.helpers import feedback_service, rows, shared_index

pytestmark = [pytest.mark.model, pytest.mark.slow]

CLIENTS = 32
ROUNDS = 8  # per client: 256 asks and 256 ratings
QUESTIONS = [
    "devo tomar a levotiroxina com o estômago vazio?",
    "como guardar a insulina?",
    "posso tomar omeprazol por muito tempo?",
    "esqueci de tomar a losartana, o que faço?",
    "quem ganhou a copa do mundo de 2002?",  # refused
    "como formatar um pendrive no windows 11?",  # refused
    "metformina dá diarreia?",
    "qual é a capital da Austrália?",  # refused
]
REASONS = ["nao_respondeu", "dificil_de_entender", "informacao_errada", "outro", None]


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Service, str]]:
    url = f"sqlite:///{tmp_path_factory.mktemp('feedback-load') / 'feedback.db'}"
    service = feedback_service(shared_index(tmp_path_factory), url, WEB_CONCURRENCY="2")
    service.start()
    yield service, url
    service.stop()


def test_load_with_feedback_mixed_in_keeps_zero_errors(svc: tuple[Service, str]) -> None:
    service, url = svc
    start = threading.Barrier(CLIENTS)
    results: list[tuple[str, int, float]] = []  # (route, status, seconds)
    sent: dict[str, tuple[bool, str | None]] = {}
    lock = threading.Lock()

    def client(n: int) -> None:
        with httpx.Client(base_url=service.url, timeout=120) as http:
            start.wait()
            for i in range(ROUNDS):
                k = n * ROUNDS + i
                t0 = time.perf_counter()
                r = http.post("/api/ask", json={"question": QUESTIONS[k % len(QUESTIONS)]})
                t1 = time.perf_counter()
                with lock:
                    results.append(("ask", r.status_code, t1 - t0))
                if r.status_code != 200:
                    continue
                helpful = k % 3 == 0
                reason = None if helpful else REASONS[k % len(REASONS)]
                body = {"answer_id": r.json()["answer_id"], "helpful": helpful}
                if reason:
                    body["reason"] = reason
                f = http.post("/api/feedback", json=body)
                with lock:
                    results.append(("feedback", f.status_code, time.perf_counter() - t1))
                    sent[body["answer_id"]] = (helpful, reason)

    t0 = time.perf_counter()
    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(client, range(CLIENTS)))
    elapsed = time.perf_counter() - t0

    bad = [(route, status) for route, status, _ in results if status not in (200, 201)]
    assert bad == [], f"{len(bad)} non-2xx responses: {bad[:10]}\n{service.logs()}"
    asks = [s for route, _, s in results if route == "ask"]
    ratings = [s for route, _, s in results if route == "feedback"]
    assert len(asks) == len(ratings) == CLIENTS * ROUNDS

    wait_until(
        lambda: len(rows(url, "answers")) == CLIENTS * ROUNDS, 30, what="every answer recorded"
    )
    stored = {r["answer_id"]: (bool(r["helpful"]), r["reason"]) for r in rows(url, "feedback")}
    assert stored == sent

    metrics = httpx.get(f"{service.url}/metrics", timeout=30).text
    assert "rag_feedback_answers_dropped_total 0.0" in metrics
    assert 'rag_feedback_write_failures_total{what="answer"} 0.0' in metrics

    def pct(values: list[float], q: float) -> float:
        return statistics.quantiles(values, n=100)[q - 1] * 1000 if len(values) > 1 else 0.0

    lag = dict(
        re.findall(r'rag_feedback_answer_write_seconds_bucket\{le="([^"]+)"\} (\S+)', metrics)
    )
    print(
        "\nqueue-to-commit lag, answers within: "
        + ", ".join(
            f"{le} s: {float(n):.0f}"
            for le, n in lag.items()
            if le in ("0.1", "0.5", "1.0", "2.5", "+Inf")
        )
    )
    print(
        f"load: {CLIENTS} clients, {len(results)} requests in {elapsed:.1f} s "
        f"({len(results) / elapsed:.0f} req/s), 0 errors; "
        f"ask p50 {pct(asks, 50):.0f} ms p95 {pct(asks, 95):.0f} ms; "
        f"feedback p50 {pct(ratings, 50):.0f} ms p95 {pct(ratings, 95):.0f} ms"
    )
