"""A response's status line, headers and body leave the worker in one write.

uvicorn writes the headers when the app sends `http.response.start` and the body when it
sends `http.response.body`: two `send` system calls. Between them the worker's event-loop
thread gives up the GIL (each system call does) and may wait up to the switch interval
behind a thread pool busy with a forward pass. A replica killed in that gap (a crash, an
OOM kill) has sent nginx a header and no body: nginx has already passed the header on to
the client, so it cannot try another replica, and the client gets a truncated response.
CI saw it once: 1 of 522 requests of a replica-kill run ended "peer closed connection
without sending complete message body (received 0 bytes, expected 2072)".

Here the transport gathers what uvicorn writes during one turn of the event loop and
sends it at the end of the turn, in one call. A response sent whole (every JSON answer:
Starlette sends its start and body messages with no await between them) is then either
entirely in the kernel's send buffer when the process dies, which the kernel still
delivers, or not written at all, and nginx sends the request to another replica
(`proxy_next_upstream error`). A stream's chunks are each still sent in the turn they
are produced; a large body is sent at once past FLUSH_AT_BYTES.

The transport is wrapped in `connection_made`; everything else is uvicorn's. gunicorn uses
it through `worker_class = "app.api.one_write.UvicornWorker"`.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from uvicorn.protocols.http.auto import AutoHTTPProtocol
from uvicorn_worker import UvicornWorker as _UvicornWorker

FLUSH_AT_BYTES = 256 * 1024


class OneWriteTransport:
    """Forwards to the real transport; write() is held until the end of the loop turn
    (or FLUSH_AT_BYTES), then sent in one write. close() sends what is held first."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop):
        self._transport = transport
        self._loop = loop
        self._held: list[bytes] = []
        self._held_bytes = 0

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        if not self._held:
            self._loop.call_soon(self.flush)
        self._held.append(bytes(data))
        self._held_bytes += len(data)
        if self._held_bytes >= FLUSH_AT_BYTES:
            self.flush()

    def flush(self) -> None:
        if not self._held:
            return
        data = b"".join(self._held)
        self._held.clear()
        self._held_bytes = 0
        if not self._transport.is_closing():
            self._transport.write(data)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class OneWriteHttpProtocol(AutoHTTPProtocol):  # type: ignore[misc,valid-type]
    """uvicorn's HTTP protocol (httptools, else h11) on a OneWriteTransport."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # Any asyncio-compatible transport (uvloop's are not asyncio.Transport subclasses).
        wrapped: Any = OneWriteTransport(
            cast(asyncio.Transport, transport), asyncio.get_running_loop()
        )
        super().connection_made(wrapped)


class UvicornWorker(_UvicornWorker):  # type: ignore[misc]
    CONFIG_KWARGS = {**_UvicornWorker.CONFIG_KWARGS, "http": OneWriteHttpProtocol}
