"""A bounded closed-loop load generator for loopback HTTP/1.1 (keep-alive, JSON POST), over
plain TCP or, for a `https://` URL, TLS (the proxy of deploy/compose.prod.yaml; its
certificate is not checked: only 127.0.0.1 is ever a target).

Raw asyncio streams instead of an HTTP library: on a 2-core host the client shares the
CPU with the server, so the client must cost as little as possible. Every run is bounded
by a duration and by a request cap; only 127.0.0.1 is accepted as a target.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.common import LOOPBACK, summary

REQUEST_TIMEOUT_S = 30.0
MAX_REQUESTS_PER_RUN = 50_000


@dataclass
class LoadResult:
    concurrency: int
    duration_s: float
    ok: int = 0
    http_errors: int = 0  # a response other than 200
    conn_errors: int = 0  # reset / closed / timed out
    latencies_ms: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)

    @property
    def errors(self) -> int:
        return self.http_errors + self.conn_errors

    def as_dict(self) -> dict[str, Any]:
        total = self.ok + self.errors
        return {
            "concurrency": self.concurrency,
            "duration_s": round(self.duration_s, 2),
            "requests": total,
            "ok": self.ok,
            "http_errors": self.http_errors,
            "conn_errors": self.conn_errors,
            "error_rate": self.errors / total if total else 0.0,
            "throughput_rps": self.ok / self.duration_s if self.duration_s else 0.0,
            "latency_ms": summary(self.latencies_ms),
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
        }


def _request_bytes(path: str, body: bytes) -> bytes:
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {LOOPBACK}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, bool]:
    """(status, server keeps the connection open)."""
    status_line = await reader.readline()
    if not status_line:
        raise ConnectionError("connection closed by the server")
    status = int(status_line.split()[1])
    length, keep = 0, True
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.decode("latin-1").partition(":")
        name = name.strip().lower()
        if name == "content-length":
            length = int(value.strip())
        elif name == "connection" and value.strip().lower() == "close":
            keep = False
        elif name == "transfer-encoding":
            raise ValueError("chunked responses are not supported by this load generator")
    if length:
        await reader.readexactly(length)
    return status, keep


async def _client(
    host: str,
    port: int,
    payloads: list[bytes],
    offset: int,
    deadline: float,
    result: LoadResult,
    budget: list[int],
    tls: ssl.SSLContext | None = None,
) -> None:
    reader = writer = None
    i = offset
    while time.monotonic() < deadline and budget[0] > 0:
        budget[0] -= 1
        payload = payloads[i % len(payloads)]
        i += 1
        started = time.perf_counter()
        try:
            if writer is None:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(
                        host, port, ssl=tls, server_hostname="localhost" if tls else None
                    ),
                    REQUEST_TIMEOUT_S,
                )
            assert reader is not None and writer is not None
            writer.write(payload)
            await writer.drain()
            status, keep = await asyncio.wait_for(_read_response(reader), REQUEST_TIMEOUT_S)
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
            result.conn_errors += 1
            if writer is not None:
                writer.close()
            reader = writer = None
            await asyncio.sleep(0.01)
            continue
        elapsed = (time.perf_counter() - started) * 1000
        result.statuses[status] = result.statuses.get(status, 0) + 1
        if status == 200:
            result.ok += 1
            result.latencies_ms.append(elapsed)
        else:
            result.http_errors += 1
        if not keep and writer is not None:
            writer.close()
            reader = writer = None
    if writer is not None:
        writer.close()


async def _run(
    host: str,
    port: int,
    path: str,
    bodies: list[dict[str, Any]],
    concurrency: int,
    duration_s: float,
    tls: ssl.SSLContext | None = None,
) -> LoadResult:
    payloads = [_request_bytes(path, json.dumps(b).encode()) for b in bodies]
    result = LoadResult(concurrency, duration_s)
    budget = [MAX_REQUESTS_PER_RUN]
    started = time.monotonic()
    deadline = started + duration_s
    await asyncio.gather(
        *(
            _client(host, port, payloads, k * 7, deadline, result, budget, tls)
            for k in range(concurrency)
        )
    )
    result.duration_s = time.monotonic() - started
    return result


def run_load(
    url: str,
    path: str,
    bodies: list[dict[str, Any]],
    concurrency: int,
    duration_s: float,
    sampler: Callable[[], None] | None = None,
    sample_every_s: float = 0.5,
) -> LoadResult:
    """Closed loop: `concurrency` connections, each sending the next request when the
    previous one answered, for `duration_s`. `sampler` runs in a thread meanwhile."""
    tls = None
    if url.startswith("https://"):
        tls = ssl.create_default_context()
        tls.check_hostname = False
        tls.verify_mode = ssl.CERT_NONE  # loopback only (below); the proxy's test certificate
    host, _, port = url.removeprefix("https://").removeprefix("http://").partition(":")
    if host != LOOPBACK:
        raise ValueError(f"load is only ever sent to {LOOPBACK}, not {host!r}")
    stop = threading.Event()
    thread = None
    if sampler is not None:

        def loop() -> None:
            while not stop.wait(sample_every_s):
                sampler()

        thread = threading.Thread(target=loop, daemon=True)
        thread.start()
    try:
        return asyncio.run(_run(host, int(port), path, bodies, concurrency, duration_s, tls))
    finally:
        stop.set()
        if thread is not None:
            thread.join(timeout=10)
