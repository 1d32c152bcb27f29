"""Deadlines for store calls.

A request opens a deadline (app.api.deadline does it for every HTTP request, from
REQUEST_DEADLINE_S). It travels in a ContextVar, so it follows the request into the
worker threads that run the agent (anyio copies the context into them). While it is
open, ChromaCalls (app.store.calls) gives each store call at most min(CHROMA_TIMEOUT_S,
what is left) and retries only while time is left.

The chromadb HTTP client cannot bound a whole call: httpx timeouts apply to each connect,
write and read separately, and the name lookup of the Chroma host runs before any of them
(a blocking getaddrinfo that no socket timeout covers). So with a deadline open, a call
runs in a small pool of helper threads and is waited for with its budget: when the budget
runs out the caller gets StoreUnavailableError at once, and the abandoned call ends by
itself (its session's timeouts stop it). Outside a request (ingest, the CLI) no deadline
is open and calls run inline, bounded by the client's timeouts as before.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from typing import TypeVar

from app.core.errors import DeadlineExceeded

T = TypeVar("T")

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "store_deadline", default=None
)

# Helper threads per process for bounded store calls. A healthy call takes milliseconds;
# when the store hangs, abandoned calls hold a thread until their socket timeout, and
# calls beyond this many wait in the queue, which their budget also bounds.
HELPER_THREADS = 16

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Open a deadline `seconds` from now for the store calls made inside the block (and
    in the threads it starts with a copy of its context). A tighter outer deadline wins."""
    end = time.monotonic() + seconds
    outer = _deadline.get()
    token = _deadline.set(end if outer is None else min(end, outer))
    try:
        yield
    finally:
        _deadline.reset(token)


def remaining() -> float | None:
    """Seconds left before the open deadline (<= 0 when it has passed); None if none."""
    end = _deadline.get()
    return None if end is None else end - time.monotonic()


def budget(limit_s: float) -> float | None:
    """What one store call may take: min(limit_s, remaining()); None with no deadline."""
    left = remaining()
    return None if left is None else min(limit_s, left)


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(HELPER_THREADS, thread_name_prefix="store-call")
        return _pool


def run_bounded(fn: Callable[[], T], budget_s: float) -> T:
    """fn() in a helper thread, waited for at most budget_s seconds. Raises
    DeadlineExceeded after that (fn keeps running in its thread and its result is
    dropped); any exception of fn is re-raised here."""
    if budget_s <= 0:
        raise DeadlineExceeded(0.0)
    ctx = contextvars.copy_context()
    future = _executor().submit(ctx.run, fn)
    try:
        return future.result(timeout=budget_s)
    except FutureTimeout:
        future.cancel()  # still queued: never runs; already running: finishes on its own
        raise DeadlineExceeded(budget_s) from None
