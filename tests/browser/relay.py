"""A TCP relay in front of the running service, which a test can close and open again.

To the browser, a closed relay is exactly a service that went down: the connection is
refused (and open connections are cut), so the page's network-error path runs for real.
The service behind it keeps running, so the suite does not pay for stopping gunicorn and
starting it again (a new start loads the embedding model: 30 to 70 s on the shared CI
machine). Written with asyncio streams from the standard library: a proxy package would
add a dependency for about forty lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any

from tests.service import free_port

_TIMEOUT_S = 10


class Relay:
    """127.0.0.1:<port> -> 127.0.0.1:<target_port>, on its own event loop thread."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()  # one per relayed connection
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    def _run(self, coro: Coroutine[Any, Any, None]) -> None:
        asyncio.run_coroutine_threadsafe(coro, self._loop).result(_TIMEOUT_S)

    def open(self) -> None:
        """Accept connections again (on the same port)."""
        self._run(self._open())

    def close(self) -> None:
        """Refuse new connections and cut the open ones."""
        self._run(self._close())

    def shutdown(self) -> None:
        self.close()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(_TIMEOUT_S)
        self._loop.close()

    async def _open(self) -> None:
        if self._server is None:
            self._server = await asyncio.start_server(
                self._relay, "127.0.0.1", self.port, reuse_address=True
            )

    async def _close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.close()
        self._writers.clear()
        # Cut connections end their pumps: wait for them, so none is left pending.
        if self._tasks:
            _, pending = await asyncio.wait(self._tasks, timeout=_TIMEOUT_S / 2)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            try:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
            except OSError:
                writer.close()
                return
            self._writers |= {writer, up_writer}
            await asyncio.gather(_pump(reader, up_writer), _pump(up_reader, writer))
            self._writers -= {writer, up_writer}
        finally:
            self._tasks.discard(task)


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy one direction until it ends, then close the other side."""
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass  # the other side went away, or the relay was closed
    finally:
        with contextlib.suppress(OSError):
            writer.close()
