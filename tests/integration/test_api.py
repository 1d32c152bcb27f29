"""The HTTP API over real HTTP: gunicorn + uvicorn worker, real model, real Chroma."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from ingest.corpus import load_corpus
from tests.conftest import CARDS
from tests.integration.conftest import ChromaServer
from tests.service import Service, free_port, ingest, service_env

pytestmark = [pytest.mark.model, pytest.mark.slow]

LEVO = "devo tomar a levotiroxina com o estômago vazio?"


def post(svc: Service, path: str, body: Any, **kw: Any) -> httpx.Response:
    return httpx.post(f"{svc.url}{path}", json=body, timeout=60, **kw)


def test_ask_returns_a_cited_answer(service: Service) -> None:
    r = post(service, "/api/ask", {"question": LEVO})
    assert r.status_code == 200, r.text
    body = r.json()
    assert not body["refused"] and body["generator"] == "extractive"
    assert "[cite:card-001]" in body["answer"]
    first = body["citations"][0]
    assert first["id"] == "card-001"
    assert first["title"] == "Levotiroxina: como e quando tomar"
    assert first["license"] == "CC-BY-4.0" and first["accessed_at"] and first["source"]
    assert body["retrieval"][0]["id"] == "card-001" and len(body["retrieval"]) == 4


def test_out_of_scope_is_refused_without_citations(service: Service) -> None:
    body = post(service, "/api/ask", {"question": "qual a capital da Austrália?"}).json()
    assert body["refused"] and body["citations"] == []
    assert "não cobre" in body["answer"] and "[cite:" not in body["answer"]


def test_emergency_is_escalated_first_and_cited(service: Service) -> None:
    q = "estou com uma dor forte no peito que vai para o braço esquerdo, o que faço?"
    body = post(service, "/api/ask", {"question": q}).json()
    assert body["emergency"] == "medical"
    assert (
        body["answer"].startswith("Isto pode ser uma emergência") and "SAMU 192" in body["answer"]
    )
    assert "card-018" in [c["id"] for c in body["citations"]]


def test_an_ordinary_question_read_as_medical_by_mistake_keeps_its_answer(
    service: Service,
) -> None:
    # The rules read "dificuldade de engolir" as a sign; the classifier is sure it is an
    # ordinary question (P(none) 0.95): the answer, no escalation, and no calm line either
    # (P(none) over the quiet level, above every tuning emergency the veto overruled).
    q = "o comprimido da metformina é muito grande, tenho dificuldade de engolir. posso partir?"
    body = post(service, "/api/ask", {"question": q}).json()
    assert body["emergency"] is None and body["uncertain"] is None, body["decision"]
    assert not body["refused"] and body["citations"][0]["id"] == "card-003"
    assert "SAMU" not in body["answer"], body["answer"]
    assert body["decision"]["signals"]["emergency"]["vetoed"] == "medical"


def test_a_vetoed_reading_the_model_is_less_sure_of_keeps_its_calm_line(
    service: Service,
) -> None:
    # Trouble swallowing that began ("ficou com"): vetoed (P(none) 0.74), under the quiet
    # level, so the answer ends with the calm line on when to call SAMU.
    q = "minha avó ficou com dificuldade de engolir, pode dissolver o remédio na água?"
    body = post(service, "/api/ask", {"question": q}).json()
    assert body["emergency"] is None and body["uncertain"] == "medical", body["decision"]
    assert not body["answer"].startswith("Isto pode ser uma emergência")
    assert body["answer"].endswith("procure atendimento ou ligue para o SAMU 192."), body["answer"]


def _events(text: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def test_stream_sends_deltas_then_the_final_object(service: Service) -> None:
    with httpx.stream(
        "POST", f"{service.url}/api/ask/stream", json={"question": LEVO}, timeout=60
    ) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        text = "".join(r.iter_text())
    events = _events(text)
    deltas = [d["text"] for name, d in events if name == "delta"]
    assert len(deltas) > 5 and events[-1][0] == "final"
    final = events[-1][1]
    assert "".join(deltas) == final["answer"]
    assert set(final) == set(post(service, "/api/ask", {"question": LEVO}).json())
    assert all(d.count("[cite:") <= 1 and ("[cite:" not in d or "]" in d) for d in deltas)


def test_search_returns_parents_with_scores(service: Service) -> None:
    body = post(service, "/api/search", {"question": LEVO, "top_k": 3}).json()
    ids = [r["id"] for r in body["results"]]
    assert ids[0] == "card-001" and len(ids) == 3 == len(set(ids))
    assert body["results"][0]["passes_min_similarity"]
    assert body["results"][0]["matched_chunk_id"].startswith("card-001::")


def test_card_lookup_and_unknown_card(service: Service) -> None:
    corpus = {c.id: c for c in load_corpus(CARDS).cards}
    r = httpx.get(f"{service.url}/api/cards/card-017", timeout=10)
    assert r.status_code == 200
    card = r.json()
    assert card["text"] == corpus["card-017"].text
    assert card["title"] == corpus["card-017"].title
    assert card["topics"] == corpus["card-017"].topics
    missing = httpx.get(f"{service.url}/api/cards/card-999", timeout=10)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_card_lookup_shows_the_clinical_review(service: Service) -> None:
    corpus = {c.id: c for c in load_corpus(CARDS).cards}
    card = httpx.get(f"{service.url}/api/cards/card-001", timeout=10).json()
    assert card["reviewed_at"] == corpus["card-001"].reviewed_at.isoformat()
    assert (
        card["reviewed_by"]
        == corpus["card-001"].reviewed_by
        == ("Equipe de farmácia clínica (revisão sintética)")
    )


def test_card_lookup_says_who_the_card_is_for(service: Service) -> None:
    corpus = {c.id: c for c in load_corpus(CARDS).cards}
    for card_id, audience in [
        ("card-036", ["elderly"]),
        ("card-022", ["adult", "child", "elderly"]),
    ]:
        card = httpx.get(f"{service.url}/api/cards/{card_id}", timeout=10).json()
        assert card["audience"] == audience == corpus[card_id].audience


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"question": ""}, "question"),
        ({"question": "   \n "}, "question"),
        ({"question": "x" * 2001}, "question"),
        ({"question": "ok", "top_k": 0}, "top_k"),
        ({"question": "ok", "top_k": 21}, "top_k"),
        ({}, "question"),
        ({"question": ["lista"]}, "question"),
    ],
)
def test_invalid_input_is_a_422_naming_the_field(service: Service, body: Any, field: str) -> None:
    r = post(service, "/api/ask", body)
    assert r.status_code == 422
    err = r.json()["error"]
    assert err["code"] == "invalid_request" and err["message"].startswith(f"{field}:")


def test_malformed_json_is_a_422(service: Service) -> None:
    r = httpx.post(
        f"{service.url}/api/ask",
        content=b"{not json",
        headers={"content-type": "application/json"},
        timeout=10,
    )
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"


def test_health_ready_metrics_and_docs(service: Service) -> None:
    assert httpx.get(f"{service.url}/healthz").json() == {"status": "ok"}
    ready = httpx.get(f"{service.url}/readyz").json()
    assert ready["ready"] and ready["cards"] == 38
    post(service, "/api/search", {"question": "insulina"})
    metrics = httpx.get(f"{service.url}/metrics").text
    assert 'rag_http_requests_total{method="POST",route="/api/search",status="200"}' in metrics
    assert 'rag_step_seconds_count{step="vector_query"}' in metrics
    assert httpx.get(f"{service.url}/docs").status_code == 200
    assert "/api/ask" in httpx.get(f"{service.url}/openapi.json").json()["paths"]


def test_index_built_differently_is_not_served(tmp_path: Path) -> None:
    chroma = tmp_path / "chroma"
    assert ingest(service_env(chroma, CHUNK_SIZE="300", CHUNK_OVERLAP="50")).returncode == 0
    svc = Service(chroma)
    svc.start()
    try:
        r = httpx.get(f"{svc.url}/readyz")
        assert r.status_code == 503
        message = r.json()["error"]["message"]
        assert "chunk_size: index has 300, this service uses 500" in message
        assert "make ingest-clean" in message
        ask = post(svc, "/api/ask", {"question": LEVO})  # no answer from a wrong index
        assert ask.status_code == 503 and ask.json()["error"]["code"] == "index_not_ready"
    finally:
        svc.stop()


def test_store_down_gives_503_then_recovers_without_restart(tmp_path: Path) -> None:
    server = ChromaServer(tmp_path / "server", free_port())
    server.start()
    http = {
        "CHROMA_MODE": "http",
        "CHROMA_HOST": "127.0.0.1",
        "CHROMA_PORT": str(server.port),
        "CHROMA_TIMEOUT_S": "2",
        "CHROMA_RETRIES": "1",
    }
    env = service_env(tmp_path / "unused", **http)
    assert ingest(env).returncode == 0
    svc = Service(tmp_path / "unused", **http)
    svc.start()
    try:
        assert post(svc, "/api/ask", {"question": LEVO}).status_code == 200
        server.stop()
        r = post(svc, "/api/ask", {"question": LEVO})
        assert r.status_code == 503
        assert r.json()["error"]["code"] == "store_unavailable"
        ready = httpx.get(f"{svc.url}/readyz", timeout=30)
        assert ready.status_code == 503 and ready.json()["ready"] is False
        server.start()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if httpx.get(f"{svc.url}/readyz", timeout=30).status_code == 200:
                break
            time.sleep(0.5)
        r = post(svc, "/api/ask", {"question": LEVO})
        assert r.status_code == 200 and "card-001" in [c["id"] for c in r.json()["citations"]]
    finally:
        svc.stop()
        server.stop()


def test_page_and_api_send_security_headers(service: Service) -> None:
    page = httpx.get(f"{service.url}/", timeout=10)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert "frame-ancestors 'none'" in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["cache-control"] == "no-cache"
    api = post(service, "/api/search", {"question": "insulina"})
    assert api.headers["x-content-type-options"] == "nosniff"


def test_self_harm_without_cards_gets_only_the_escalation(service: Service) -> None:
    body = post(service, "/api/ask", {"question": "não quero mais viver"}).json()
    assert body["emergency"] == "self_harm"
    assert "CVV 188" in body["answer"] and "não cobre" not in body["answer"]
