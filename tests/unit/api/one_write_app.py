"""A bare ASGI app for tests/unit/api/test_one_write.py, served by real gunicorn workers.

/die sends its response's start, then the worker SIGKILLs itself before the body: a
replica killed between the two writes. /big is a 1 MiB body, /stream three chunks, /pid the
worker's process id."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

BIG = bytes(range(256)) * 4096


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    path = scope["path"]
    if path == "/die":
        body = b'{"answer": "never sent"}'
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        os.kill(os.getpid(), signal.SIGKILL)
    elif path == "/stream":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        for i in range(3):
            await send({"type": "http.response.body", "body": b"chunk %d\n" % i, "more_body": True})
            await asyncio.sleep(0.05)
        await send({"type": "http.response.body", "body": b""})
    else:
        body = BIG if path == "/big" else b"%d" % os.getpid() if path == "/pid" else b"ok"
        headers = [(b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})
