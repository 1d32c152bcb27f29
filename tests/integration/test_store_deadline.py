"""A store that never answers cannot hold a request past its deadline.

The "server" here is a loopback socket that accepts connections and never answers: the
way a Chroma container looks while it is being killed or restarted."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.core.config import Settings
from app.core.errors import StoreUnavailableError
from app.store import deadline
from app.store.client import make_client
from app.store.index import IndexStore
from tests.service import Service


@pytest.fixture
def black_hole() -> Iterator[int]:
    """A TCP port on 127.0.0.1 that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(128)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join(timeout=5)
    for conn in held:
        conn.close()
    server.close()


def http_settings(port: int, tmp_path: Path, **extra: object) -> Settings:
    fields: dict[str, object] = {
        "chroma_mode": "http",
        "chroma_host": "127.0.0.1",
        "chroma_port": port,
        "chroma_path": tmp_path / "unused",
        **extra,
    }
    return Settings(_env_file=None, **fields)  # type: ignore[call-arg, arg-type]


def test_a_new_client_bounds_its_first_requests(black_hole: int, tmp_path: Path) -> None:
    # chromadb's constructor asks the server for the user identity, tenant and database;
    # it used to do so with no timeout at all and hung here forever.
    import chromadb.api.client  # noqa: F401  (import time is not what is measured)

    start = time.monotonic()
    with pytest.raises(ValueError):
        make_client(http_settings(black_hole, tmp_path, chroma_timeout_s=0.5))
    assert time.monotonic() - start < 5


def test_store_calls_end_at_the_request_deadline(black_hole: int, tmp_path: Path) -> None:
    store = IndexStore(http_settings(black_hole, tmp_path, chroma_timeout_s=10, chroma_retries=2))
    start = time.monotonic()
    with deadline.deadline(1.0), pytest.raises(StoreUnavailableError, match="REQUEST_DEADLINE_S"):
        store.heartbeat()
    took = time.monotonic() - start
    assert took < 1.5, f"the call outlived its 1 s deadline: {took:.2f} s"


def test_a_blocking_name_lookup_cannot_outlive_the_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # getaddrinfo is not covered by any socket timeout: a resolver that does not answer
    # (Docker's embedded DNS forwarding a dead container's name) blocks for seconds.
    def slow_lookup(*args: object, **kwargs: object) -> list[object]:
        time.sleep(5)
        raise socket.gaierror("name lookup timed out")

    monkeypatch.setattr(socket, "getaddrinfo", slow_lookup)
    store = IndexStore(http_settings(8000, tmp_path, chroma_host="chroma.invalid"))
    start = time.monotonic()
    with deadline.deadline(0.8), pytest.raises(StoreUnavailableError):
        store.heartbeat()
    assert time.monotonic() - start < 1.3


def test_without_a_deadline_calls_keep_the_client_timeouts(black_hole: int, tmp_path: Path) -> None:
    # Ingest and the CLI open no deadline: CHROMA_TIMEOUT_S and CHROMA_RETRIES bound them.
    store = IndexStore(http_settings(black_hole, tmp_path, chroma_timeout_s=0.3, chroma_retries=1))
    start = time.monotonic()
    with pytest.raises(StoreUnavailableError, match="after 2 attempt"):
        store.heartbeat()
    assert time.monotonic() - start < 10


@pytest.mark.slow
def test_every_request_answers_within_request_deadline_s(
    black_hole: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Service.start probes /readyz with a 2 s client timeout; this service answers that
    # probe with a 503 after its 4 s deadline, so give the probe longer.
    probe = httpx.get
    monkeypatch.setattr(httpx, "get", lambda url, timeout: probe(url, timeout=15))
    service = Service(
        tmp_path / "chroma",
        CHROMA_MODE="http",
        CHROMA_HOST="127.0.0.1",
        CHROMA_PORT=str(black_hole),
        CHROMA_TIMEOUT_S="30",
        REQUEST_DEADLINE_S="4",
        WEB_CONCURRENCY="1",
    )
    service.start()
    try:
        timings = []
        for path, body in (("/api/ask", {"question": "Posso tomar dipirona?"}), ("/readyz", None)):
            start = time.monotonic()
            if body is None:
                res = probe(service.url + path, timeout=60)
            else:
                res = httpx.post(service.url + path, json=body, timeout=60)
            timings.append(time.monotonic() - start)
            assert res.status_code == 503, res.text
            assert res.headers["content-type"].startswith("application/json")
            assert res.json()["error"]["code"] == "store_unavailable", res.text
    finally:
        service.stop()
    assert max(timings) < 4, timings


def test_an_ingest_waits_for_its_store_longer_than_a_served_request(
    black_hole: int, tmp_path: Path
) -> None:
    """The same unanswered call: the served settings give up at CHROMA_TIMEOUT_S, an
    ingest's (Settings.for_ingest) waits CHROMA_INGEST_TIMEOUT_S."""
    import chromadb.api.client  # noqa: F401  (import time is not what is measured)

    served = http_settings(
        black_hole, tmp_path, chroma_timeout_s=0.3, chroma_ingest_timeout_s=1.5, chroma_retries=0
    )
    start = time.monotonic()
    with pytest.raises(StoreUnavailableError):
        IndexStore(served.for_ingest()).heartbeat()
    ingest_took = time.monotonic() - start
    assert ingest_took >= 1.5, f"the ingest gave up after {ingest_took:.2f} s, before 1.5 s"
    start = time.monotonic()
    with pytest.raises(StoreUnavailableError):
        IndexStore(served).heartbeat()
    served_took = time.monotonic() - start
    assert served_took < ingest_took, (served_took, ingest_took)
