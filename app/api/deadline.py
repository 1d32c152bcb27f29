"""Every HTTP request answers within REQUEST_DEADLINE_S.

Plain ASGI middleware, innermost (just outside the routes, so its answer still gets the
security headers and the metrics):

- it opens a store deadline (app.store.deadline) slightly shorter than the request's, so
  a store that does not answer normally ends as the route's own 503 `store_unavailable`;
- as a backstop, if the route has not started its response shortly before
  REQUEST_DEADLINE_S (a thread pool full of stuck calls, anything else that blocks), it
  answers 503
  `deadline_exceeded` itself. The route keeps running in the background and whatever it
  sends later is dropped; its error, if any, is logged.

A response that has started (e.g. a stream) is never cut.
"""

from __future__ import annotations

import asyncio
import json
import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.config import Settings
from app.store.deadline import deadline

log = logging.getLogger(__name__)

# The store gives up this much before the request deadline, so its 503 (which names the
# store) normally wins over the backstop's; the backstop answers this much before the
# deadline itself, which leaves room for what the app's clock does not see (the accept
# queue, an event loop slowed by a saturated CPU). Measured: with 0.25 s of room, 8 of
# 10,418 requests of a 30-kill loop on a loaded host arrived 10.4-11.5 s after they were
# sent (docs/reliability.md).
STORE_MARGIN_S = 2.5
BACKSTOP_MARGIN_S = 1.5


class RequestDeadline:
    def __init__(self, app: ASGIApp, settings: Settings):
        self.app = app
        self.seconds = settings.request_deadline_s
        self.store_seconds = self.seconds - min(STORE_MARGIN_S, self.seconds / 4)
        self.backstop_seconds = self.seconds - min(BACKSTOP_MARGIN_S, self.seconds / 8)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = asyncio.Event()
        abandoned = False

        async def guarded_send(message: Message) -> None:
            if abandoned:
                return
            if message["type"] == "http.response.start":
                started.set()
            await send(message)

        with deadline(self.store_seconds):  # the task below copies this context
            task = asyncio.ensure_future(self.app(scope, receive, guarded_send))
        waiter = asyncio.ensure_future(started.wait())
        await asyncio.wait(
            {task, waiter}, timeout=self.backstop_seconds, return_when=asyncio.FIRST_COMPLETED
        )
        waiter.cancel()
        # Checked on the flags, not on what wait() returned: a start sent in the same loop
        # turn as the timeout has set `started` before its waiter task could finish.
        if started.is_set() or task.done():
            await task  # the response has started (or the app finished): let it complete
            return
        abandoned = True  # no await since the check: nothing of the app's gets through now
        task.add_done_callback(_log_late_failure)
        log.warning(
            "%s %s: no response within REQUEST_DEADLINE_S (%.1f s); answered 503",
            scope["method"],
            scope["path"],
            self.seconds,
        )
        body = json.dumps(
            {
                "error": {
                    "code": "deadline_exceeded",
                    "message": f"no answer within {self.seconds:g} s; retry in a moment",
                }
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 503,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"retry-after", b"5"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _log_late_failure(task: asyncio.Future[None]) -> None:
    if task.cancelled():
        return
    exc = task.exception()
    if exc is not None:
        log.warning("a request answered by the deadline failed later: %r", exc)
