"""Prometheus metrics. Under gunicorn, every worker writes to a shared directory and
/metrics aggregates them.

Multiprocess mode is prometheus_client's, not a setting of ours: the library reads
PROMETHEUS_MULTIPROC_DIR (exported by app/gunicorn_conf.py) when it is imported, before
any metric exists, and picks how values are stored. `render` follows the mode the library
chose instead of reading the environment again.
"""

from __future__ import annotations

import time

from fastapi import Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
    values,
)
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUESTS = Counter("rag_http_requests_total", "HTTP requests", ["route", "method", "status"])
LATENCY = Histogram(
    "rag_http_request_seconds",
    "HTTP request latency",
    ["route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
STEP = Histogram(
    "rag_step_seconds",
    "Time per pipeline step",
    ["step"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30),
)


def observe_steps(timings_ms: dict[str, float]) -> None:
    for step, ms in timings_ms.items():
        STEP.labels(step=step).observe(ms / 1000)


class MetricsMiddleware:
    """Requests and latency by route, as plain ASGI middleware (no per-request task or
    body streams, which `app.middleware("http")` adds; measured in docs/benchmarks.md)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            path = getattr(scope.get("route"), "path", "unmatched")
            REQUESTS.labels(route=path, method=scope["method"], status=str(status)).inc()
            LATENCY.labels(route=path).observe(time.perf_counter() - started)


MULTIPROCESS = values.ValueClass is not values.MutexValue


def render() -> Response:
    if MULTIPROCESS:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
