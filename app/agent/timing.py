"""The timings a node adds to the state (`timings_ms`, reported with each answer)."""

from __future__ import annotations

import time

from app.agent.state import AgentState


def timings(state: AgentState, **new: float) -> dict[str, float]:
    """The state's timings so far, with `new` added (a fresh dict: the state is not changed)."""
    out = dict(state.get("timings_ms", {}))
    out.update(new)
    return out


def elapsed_ms(started: float) -> float:
    """Milliseconds since `started` (a time.perf_counter() reading)."""
    return (time.perf_counter() - started) * 1000
