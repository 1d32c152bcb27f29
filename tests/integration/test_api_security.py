"""Access control at the edge, over real HTTP: API key, body size, content type, CORS,
rate limiting."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from evaluation.service import Service, ingest, service_env

pytestmark = [pytest.mark.model, pytest.mark.slow]

KEY = "s3cr3t-test-key"
Q = {"question": "como guardar insulina?"}


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    chroma = tmp_path_factory.mktemp("guarded") / "chroma"
    assert ingest(service_env(chroma)).returncode == 0
    svc = Service(
        chroma,
        API_KEY=KEY,
        MAX_BODY_BYTES="2048",
        CORS_ORIGINS="https://atendimento.example.org",
        RATE_LIMIT_PER_MINUTE="600",
    )
    svc.start()
    yield svc
    svc.stop()


def test_api_key_required_on_api_routes_only(guarded: Service) -> None:
    missing = httpx.post(f"{guarded.url}/api/ask", json=Q, timeout=30)
    assert missing.status_code == 401 and missing.json()["error"]["code"] == "unauthorized"
    wrong = httpx.post(f"{guarded.url}/api/ask", json=Q, headers={"x-api-key": "nope"})
    assert wrong.status_code == 401
    assert httpx.get(f"{guarded.url}/api/cards/card-001").status_code == 401
    ok = httpx.post(f"{guarded.url}/api/ask", json=Q, headers={"x-api-key": KEY}, timeout=30)
    assert ok.status_code == 200 and ok.json()["citations"]
    assert httpx.get(f"{guarded.url}/healthz").status_code == 200
    assert httpx.get(f"{guarded.url}/readyz").status_code == 200
    assert httpx.get(f"{guarded.url}/").status_code == 200


def test_oversized_bodies_rejected_early(guarded: Service) -> None:
    big = {"question": "x" * 4000}
    r = httpx.post(f"{guarded.url}/api/ask", json=big, headers={"x-api-key": KEY})
    assert r.status_code == 413 and r.json()["error"]["code"] == "payload_too_large"

    def chunks() -> Iterator[bytes]:  # no content-length: chunked transfer
        yield b'{"question": "'
        for _ in range(10):
            yield b"y" * 500
        yield b'"}'

    r = httpx.post(
        f"{guarded.url}/api/ask",
        content=chunks(),
        headers={"x-api-key": KEY, "content-type": "application/json"},
    )
    assert r.status_code == 413


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded", ""])
def test_non_json_bodies_get_415(guarded: Service, ctype: str) -> None:
    r = httpx.post(
        f"{guarded.url}/api/ask",
        content=b"question=oi",
        headers={"x-api-key": KEY, "content-type": ctype},
    )
    assert r.status_code == 415
    assert "application/json" in r.json()["error"]["message"]


def test_cors_allows_only_the_configured_origin(guarded: Service, service: Service) -> None:
    preflight = {
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,x-api-key",
    }
    allowed = httpx.options(
        f"{guarded.url}/api/ask", headers={"origin": "https://atendimento.example.org", **preflight}
    )
    assert allowed.headers["access-control-allow-origin"] == "https://atendimento.example.org"
    other = httpx.options(
        f"{guarded.url}/api/ask", headers={"origin": "https://evil.example.com", **preflight}
    )
    assert "access-control-allow-origin" not in other.headers
    closed = httpx.post(
        f"{service.url}/api/search",
        json=Q,
        headers={"origin": "https://atendimento.example.org"},
        timeout=30,
    )
    assert "access-control-allow-origin" not in closed.headers


def test_rate_limit_answers_429_with_retry_after(tmp_path_factory: pytest.TempPathFactory) -> None:
    chroma = tmp_path_factory.mktemp("limited") / "chroma"
    assert ingest(service_env(chroma)).returncode == 0
    svc = Service(chroma, RATE_LIMIT_PER_MINUTE="5")
    svc.start()
    try:
        codes = [httpx.get(f"{svc.url}/api/cards/card-001").status_code for _ in range(8)]
        assert codes[:5] == [200] * 5 and 429 in codes[5:]
        limited = httpx.get(f"{svc.url}/api/cards/card-001")
        assert limited.status_code == 429
        assert int(limited.headers["retry-after"]) >= 1
        assert limited.json()["error"]["code"] == "rate_limited"
        assert httpx.get(f"{svc.url}/healthz").status_code == 200
    finally:
        svc.stop()
