"""The API served by gunicorn on a loopback port (evaluation.service.Service), plus
helpers to read its /metrics and measure its processes' memory."""

from __future__ import annotations

import http.client
import json
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.common import LOOPBACK, proc_tree_memory
from evaluation.service import Service, ingest, service_env

_SAMPLE = re.compile(r'^rag_step_seconds_(sum|count)\{step="([^"]+)"\}\s+(\S+)$')


def ensure_index(chroma_path: Path) -> None:
    result = ingest(service_env(chroma_path))
    if result.returncode != 0:
        raise RuntimeError(f"ingest failed:\n{result.stderr[-3000:]}")


@contextmanager
def served(
    chroma_path: Path, workers: int, threads: int | None = None, **env: str
) -> Iterator[Service]:
    # No rate limit: the load generator is one client IP (it is off by default anyway).
    extra = {"WEB_CONCURRENCY": str(workers), "RATE_LIMIT_PER_MINUTE": "0", **env}
    if threads is not None:
        extra["TORCH_THREADS"] = str(threads)
    # Idempotent (rebuilds only when stale): the code under app/ may have changed since
    # the last server of this run started (the index format is checked by /readyz).
    ensure_index(chroma_path)
    service = Service(chroma_path, **extra)
    if not service.url.startswith(f"http://{LOOPBACK}:"):
        raise RuntimeError(f"refusing a non-loopback service URL {service.url}")
    service.start(timeout_s=180)
    try:
        wait_ready(service.url, timeout_s=120)
        yield service
    finally:
        service.stop()


def _conn(url: str) -> http.client.HTTPConnection:
    host, _, port = url.removeprefix("http://").partition(":")
    if host != LOOPBACK:
        raise ValueError(f"only {LOOPBACK} is ever contacted, not {host!r}")
    return http.client.HTTPConnection(host, int(port), timeout=30)


def wait_ready(url: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    last = ""
    while time.monotonic() < deadline:
        try:
            conn = _conn(url)
            conn.request("GET", "/readyz")
            resp = conn.getresponse()
            last = resp.read().decode(errors="replace")
            conn.close()
            if resp.status == 200:
                return
        except OSError as exc:
            last = str(exc)
        time.sleep(0.5)
    raise RuntimeError(f"{url} not ready after {timeout_s} s: {last[:500]}")


def step_totals(url: str) -> dict[str, tuple[float, float]]:
    """{step: (sum seconds, count)} from /metrics (aggregated over workers)."""
    conn = _conn(url)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    conn.close()
    out: dict[str, list[float]] = {}
    for line in text.splitlines():
        m = _SAMPLE.match(line)
        if m:
            kind, step, value = m.groups()
            out.setdefault(step, [0.0, 0.0])[0 if kind == "sum" else 1] += float(value)
    return {k: (v[0], v[1]) for k, v in out.items()}


def step_means_ms(
    before: dict[str, tuple[float, float]], after: dict[str, tuple[float, float]]
) -> dict[str, float]:
    means = {}
    for step, (s1, c1) in after.items():
        s0, c0 = before.get(step, (0.0, 0.0))
        if c1 > c0:
            means[step] = (s1 - s0) / (c1 - c0) * 1000
    return means


def sequential(
    url: str,
    path: str,
    bodies: list[dict[str, Any]],
    n: int,
    before_each: Callable[[int], Any] | None = None,
) -> list[float]:
    """n POSTs one after another on one keep-alive connection; client latencies in ms.
    `before_each(i)` runs (untimed) before request i."""
    conn = _conn(url)
    latencies = []
    try:
        for i in range(n):
            if before_each is not None:
                before_each(i)
            payload = json.dumps(bodies[i % len(bodies)])
            started = time.perf_counter()
            conn.request("POST", path, body=payload, headers={"content-type": "application/json"})
            resp = conn.getresponse()
            resp.read()
            elapsed = (time.perf_counter() - started) * 1000
            if resp.status != 200:
                raise RuntimeError(f"{path} answered {resp.status}")
            latencies.append(elapsed)
    finally:
        conn.close()
    return latencies


def round_trips(url: str, path: str, n: int) -> list[float]:
    """n GETs of `path` one after another on one keep-alive connection; client latencies in
    ms. On /healthz (no body, no thread, no store) this is what the HTTP stack alone costs
    a request: the client, uvicorn, the middlewares and the routing."""
    conn = _conn(url)
    latencies = []
    try:
        for _ in range(n):
            started = time.perf_counter()
            conn.request("GET", path)
            resp = conn.getresponse()
            resp.read()
            latencies.append((time.perf_counter() - started) * 1000)
            if resp.status != 200:
                raise RuntimeError(f"{path} answered {resp.status}")
    finally:
        conn.close()
    return latencies


def service_memory(service: Service, full: bool = True) -> dict[str, Any]:
    """RSS/PSS of the gunicorn master and each worker (MB)."""
    assert service.proc is not None
    tree = proc_tree_memory(service.proc.pid, full)
    master_key = next((k for k in tree if k.startswith(f"{service.proc.pid}:")), None)
    workers = {k: v for k, v in tree.items() if k != master_key}
    master = tree.get(master_key) if master_key else None
    return {
        "master_rss_mb": master.rss_mb if master else 0.0,
        "workers_rss_mb": [v.rss_mb for v in workers.values()],
        "workers_pss_mb": [v.pss_mb for v in workers.values()],
        "total_rss_mb": sum(v.rss_mb for v in tree.values()),
        "total_pss_mb": sum(v.pss_mb for v in tree.values()),
    }
