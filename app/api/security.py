"""Access control at the edge, as plain ASGI middleware (no body is read twice):

- body size: requests larger than MAX_BODY_BYTES get 413 before the app parses them;
- content type: POST bodies to /api must be JSON (415 otherwise);
- API key: when API_KEY is set, every /api route needs the X-API-Key header (401);
- rate limit: RATE_LIMIT_PER_MINUTE requests per client IP per worker (429 + Retry-After).

/healthz, /readyz, /metrics and the page stay open.
"""

from __future__ import annotations

import hmac
import json
import math
import threading
import time
from collections import OrderedDict

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.config import Settings


async def _error(send: Send, status: int, code: str, message: str, headers: dict[str, str]) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


class RateLimiter:
    """A token bucket per client, refilled continuously; bounded number of clients."""

    def __init__(self, per_minute: int, max_clients: int = 10_000):
        self.rate = per_minute / 60.0
        self.capacity = float(per_minute)
        self.max_clients = max_clients
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def acquire(self, client: str) -> float:
        """0 when allowed, else the seconds until a request would be allowed."""
        now = time.monotonic()
        with self._lock:
            tokens, stamp = self._buckets.pop(client, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - stamp) * self.rate)
            wait = 0.0 if tokens >= 1 else (1 - tokens) / self.rate
            self._buckets[client] = (tokens - 1 if tokens >= 1 else tokens, now)
            while len(self._buckets) > self.max_clients:
                self._buckets.popitem(last=False)
        return wait


class EdgeGuard:
    def __init__(self, app: ASGIApp, settings: Settings):
        self.app = app
        self.max_body = settings.max_body_bytes
        self.api_key = settings.api_key.get_secret_value().encode()
        self.limiter = (
            RateLimiter(settings.rate_limit_per_minute) if settings.rate_limit_per_minute else None
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or not scope["path"].startswith("/api")
            or scope["method"] == "OPTIONS"  # CORS preflight, answered by the CORS layer
        ):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if self.api_key:
            given = headers.get("x-api-key", "").encode()
            if not hmac.compare_digest(given, self.api_key):
                await _error(send, 401, "unauthorized", "missing or wrong X-API-Key header", {})
                return
        if self.limiter:
            client = (scope.get("client") or ("unknown", 0))[0]
            wait = self.limiter.acquire(client)
            if wait > 0:
                retry = str(max(1, math.ceil(wait)))
                await _error(
                    send,
                    429,
                    "rate_limited",
                    f"too many requests; retry after {retry} s",
                    {"retry-after": retry},
                )
                return
        if scope["method"] in ("POST", "PUT", "PATCH"):
            declared = headers.get("content-length")
            if declared and declared.isdigit() and int(declared) > self.max_body:
                await _error(
                    send, 413, "payload_too_large", f"request body over {self.max_body} bytes", {}
                )
                return
            ctype = headers.get("content-type", "").split(";")[0].strip().lower()
            if ctype != "application/json":
                await _error(
                    send,
                    415,
                    "unsupported_media_type",
                    "send the body as JSON with content-type: application/json",
                    {},
                )
                return
            body, too_big = await self._read(receive)
            if too_big:
                await _error(
                    send, 413, "payload_too_large", f"request body over {self.max_body} bytes", {}
                )
                return
            receive = _replay(body, receive)
        await self.app(scope, receive, send)

    async def _read(self, receive: Receive) -> tuple[bytes, bool]:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return b"", True
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks), False


def _replay(body: bytes, receive: Receive) -> Receive:
    """The body already read, then the real channel (so a disconnect is still seen)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
