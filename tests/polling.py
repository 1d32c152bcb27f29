"""Waiting in tests: poll the condition waited for, with a deadline, instead of a fixed
sleep (too short on a loaded machine, needlessly long on an idle one)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(
    predicate: Callable[[], T], timeout: float, interval: float = 0.05, what: str = ""
) -> T:
    """Call predicate() every `interval` seconds until it returns a truthy value, and
    return that value. After `timeout` seconds (and one last call) raise AssertionError
    naming `what` (or the predicate)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            name = what or getattr(predicate, "__name__", repr(predicate))
            raise AssertionError(f"timed out after {timeout:g} s waiting for: {name}")
        time.sleep(interval)
