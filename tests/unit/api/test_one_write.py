"""app.api.one_write under real gunicorn: a worker killed after its app sent a response's
start but before the body has written nothing to the socket, so a proxy can still send
the request to another replica; with uvicorn's own worker the client gets a header and
no body (the control, which shows the test can fail). Whole, large and streamed
responses still arrive intact. A worker recycled by max_requests answers the requests
already sent to it (uvicorn's drops some: the control)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.polling import wait_until
from tests.service import ROOT, free_port
from tests.unit.api.one_write_app import BIG

WORKERS = {
    "one_write": "app.api.one_write.UvicornWorker",
    "uvicorn": "uvicorn_worker.UvicornWorker",
}


def _serve(worker: str, *options: str) -> Iterator[int]:
    """gunicorn with `worker` on a free port (one worker unless `options` say otherwise)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-k", worker, "-w", "1", "-b", f"127.0.0.1:{port}",
         "--graceful-timeout", "2", *options, "tests.unit.api.one_write_app:app"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_until(lambda: _ok(port), 60, interval=0.2, what=f"gunicorn ({worker}) serving")
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _ok(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/", timeout=2).text == "ok"
    except httpx.HTTPError:
        return False


@pytest.fixture(scope="module", params=list(WORKERS))
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, int]]:
    for port in _serve(WORKERS[request.param]):
        yield request.param, port


def _raw_get(port: int, path: str) -> bytes:
    """Everything the server sent before it closed the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        received = b""
        while chunk := s.recv(65536):
            received += chunk
        return received


def test_a_worker_killed_between_start_and_body_wrote_nothing(served: tuple[str, int]) -> None:
    worker, port = served
    received = _raw_get(port, "/die")
    if worker == "one_write":
        assert received == b""
    else:  # the control: uvicorn's worker sent the header at once
        assert received.startswith(b"HTTP/1.1 200 OK\r\n")
        assert received.endswith(b"\r\n\r\n")
    wait_until(lambda: _ok(port), 60, interval=0.2, what="the worker replaced")


def test_whole_large_and_streamed_responses_arrive_intact(served: tuple[str, int]) -> None:
    _, port = served
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as c:
        assert c.get("/").text == "ok"
        big = c.get("/big")
        assert big.status_code == 200 and big.content == BIG
        with c.stream("GET", "/stream") as res:
            assert list(res.iter_lines()) == ["chunk 0", "chunk 1", "chunk 2"]
        assert c.get("/").text == "ok"  # the keep-alive connection still works


RECYCLE_EVERY = 25  # --max-requests, no jitter: a worker restarts every 25 requests
CLIENTS = 8


def _traffic(port: int, per_client: int) -> tuple[int, list[str], set[str]]:
    """CLIENTS threads; half open a new connection per request (`Connection: close`), half
    keep one connection alive. Returns (answered, failures, worker pids seen)."""
    url = f"http://127.0.0.1:{port}/pid"

    def client(i: int) -> tuple[int, list[str], set[str]]:
        ok, failed, pids = 0, [], set()
        keep = i % 2 == 0
        headers = {} if keep else {"Connection": "close"}
        with httpx.Client(timeout=30, headers=headers) as c:
            for _ in range(per_client):
                try:
                    res = c.get(url)
                    assert res.status_code == 200, res.status_code
                    pids.add(res.text)
                    ok += 1
                except (httpx.HTTPError, AssertionError) as exc:
                    failed.append(f"{'keep-alive' if keep else 'new connection'}: {exc!r}")
        return ok, failed, pids

    with ThreadPoolExecutor(CLIENTS) as pool:
        results = list(pool.map(client, range(CLIENTS)))
    return (
        sum(r[0] for r in results),
        [f for r in results for f in r[1]],
        set().union(*(r[2] for r in results)),
    )


@pytest.mark.parametrize("worker", list(WORKERS))
def test_a_recycled_worker_serves_the_requests_already_sent(worker: str) -> None:
    """gunicorn's max_requests restarts a worker while clients keep sending: with this
    worker every request is answered; uvicorn's closes connections it has accepted but not
    read yet, and some clients get a reset (the control)."""
    options = ("-w", "2", "--max-requests", str(RECYCLE_EVERY), "--max-requests-jitter", "0")
    for port in _serve(WORKERS[worker], *options):
        answered, failures, pids = _traffic(port, per_client=100)
    assert len(pids) >= 5, f"only {len(pids)} workers served: the test recycled too little"
    if worker == "one_write":
        assert failures == [], f"{len(failures)} of 800 failed: {failures[:5]}"
        assert answered == 800
    else:
        assert failures, "uvicorn's worker dropped no request: the control shows nothing"
