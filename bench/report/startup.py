"""Section 2b: from process start to ready, quiet and with every core busy (issue 29)."""

from __future__ import annotations

from typing import Any

from bench.common import pct
from bench.report.format import Section, met, num, table

QUIET_TARGET_S = 10.0
BUSY_TARGET_S = 30.0


def render(st: dict[str, Any]) -> Section:
    rows = []
    targets = []
    for name, target in (("quiet", QUIET_TARGET_S), ("busy", BUSY_TARGET_S)):
        times = st.get(name) or []
        worst = max(times) if times else None
        rows.append(
            [name, len(times), num(min(times) if times else None), num(pct(times, 50)), num(worst)]
        )
        targets.append(
            [
                f"start to ready, {name} host (worst of {len(times)})",
                f"{num(worst)} s (target ≤ {target:.0f} s)",
                met(worst is not None and worst <= target),
            ]
        )
    markdown = (
        "## 2b. Start-up: from process start to ready\n\n"
        f"`gunicorn -c app/gunicorn_conf.py app.api.main:app` (what `make run` starts) with "
        f"{st['workers']} workers over the served index, timed from the start of the process "
        "to its first 200 on `/readyz` (a worker has loaded its model, read the banks stored "
        "with the build and warmed the build). Each start gets an empty `VECTOR_CACHE_DIR`, "
        f"as an api container has. Busy: {st['busy_loops']} CPU-bound Python loops (one per "
        "core) run beside it for the whole start. Load average (1 min) at the section's "
        f"start: {st.get('load_avg_1m_at_start', '–')}.\n\n"
        + table(["host", "starts", "min (s)", "p50 (s)", "max (s)"], rows)
    )
    return Section(markdown, targets)
