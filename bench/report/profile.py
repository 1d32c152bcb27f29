"""Section 1b: where the time of one request goes (py-spy on a served worker)."""

from __future__ import annotations

from typing import Any

from bench.report.format import Section, table


def render(pr: dict[str, Any]) -> Section:
    routes = [r for r in ("/api/search", "/api/ask") if r in pr]
    names: list[str] = []
    for r in routes:
        names += [n for n in pr[r]["shares"] if n not in names]
    rows = [[n] + [f"{pr[r]['shares'].get(n, 0) * 100:.1f}%" for r in routes] for n in names]
    counts = "; ".join(
        f"`{r}`: {pr[r]['requests']} requests, {pr[r]['busy_samples']} busy samples" for r in routes
    )
    markdown = (
        "## 1b. Where the time goes (profile)\n\n"
        f"`{pr['tool']}` (py-spy) attached to the one gunicorn worker of a service started "
        f"with default settings, {pr['seconds']:.0f} s per route while the golden questions "
        f"are sent one at a time ({counts}). Only the thread holding the GIL is sampled "
        "(without `--gil`, the event loop waiting for the GIL while a pool thread embeds "
        "looks busy); numpy work that releases the GIL, part of the embedding, is "
        "under-counted. Each sample goes to the first category, from the innermost frame "
        "outwards, that names its code (`bench/profile.py`; raw stacks in "
        "`artifacts/bench/profile-*.txt`). py-spy pauses the worker to sample it, so requests "
        "are slower than in section 1; the shares are what matters.\n\n"
        + table(["share of busy samples", *[f"`{r}`" for r in routes]], rows)
    )
    return Section(markdown)
