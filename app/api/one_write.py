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

A worker that shuts down (recycled after max_requests, or stopped by a rolling restart)
serves the requests already on their way before it closes a connection. uvicorn closes
at once every connection with no request in progress, and that includes one accepted an
instant ago whose request the worker has not read yet: the client, which has sent its
request, gets a reset. Measured with `ab -r -n 5000 -c 16` against a bare app and
`--max-requests 100`: 74 failed requests in 27 recycles with uvicorn's worker, 51 in 20
with this one before the change (gunicorn issues 2567 and 3038), 0 after. Here such a
connection is kept for DRAIN_S: a request that arrives is served with `Connection: close`,
then the connection closes; one that stays silent is closed when DRAIN_S ends. A
connection in the middle of a request is left to uvicorn (it closes after the response).

The transport is wrapped in `connection_made`, and `shutdown` and `data_received` drain as
above; everything else is uvicorn's. gunicorn uses it through
`worker_class = "app.api.one_write.UvicornWorker"`.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from uvicorn.protocols.http.auto import AutoHTTPProtocol
from uvicorn_worker import UvicornWorker as _UvicornWorker

FLUSH_AT_BYTES = 256 * 1024
DRAIN_S = 1.0  # how long a shutting-down worker waits for a request on an idle connection


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
    """uvicorn's HTTP protocol (httptools, else h11) on a OneWriteTransport, which serves
    the request already on its way when the worker shuts down (module docstring)."""

    _draining = False
    _drain_bytes = 0  # bytes received since the drain began
    _idle_cycle: Any = None  # the (finished) request of the connection when the drain began

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # Any asyncio-compatible transport (uvloop's are not asyncio.Transport subclasses).
        wrapped: Any = OneWriteTransport(
            cast(asyncio.Transport, transport), asyncio.get_running_loop()
        )
        super().connection_made(wrapped)

    def shutdown(self) -> None:
        if self.cycle is not None and not self.cycle.response_complete:
            super().shutdown()  # a request in progress: closed after its response
            return
        self._draining = True
        self._idle_cycle = self.cycle
        asyncio.get_running_loop().call_later(DRAIN_S, self._close_if_idle)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._draining:
            self._drain_bytes += len(data)
            if self.cycle is not None:
                self.cycle.keep_alive = False  # the response says `Connection: close`

    def _close_if_idle(self) -> None:
        if self.transport.is_closing():
            return
        if self.cycle is not self._idle_cycle:
            return  # a request arrived: the connection closes after its response
        if self._drain_bytes:  # a request's head still arriving
            asyncio.get_running_loop().call_later(DRAIN_S, self._close_if_idle)
        else:
            super().shutdown()


class UvicornWorker(_UvicornWorker):  # type: ignore[misc]
    CONFIG_KWARGS = {**_UvicornWorker.CONFIG_KWARGS, "http": OneWriteHttpProtocol}
