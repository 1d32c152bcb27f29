"""Shared helpers: percentiles, settings for a run, quick mode, process memory."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
CORES = os.cpu_count() or 1
LOOPBACK = "127.0.0.1"  # the only address load is ever sent to


def pct(values: Iterable[float], q: float) -> float:
    """q-th percentile (0-100), linear interpolation; nan for no values."""
    xs = sorted(values)
    if not xs:
        return float("nan")
    if len(xs) == 1:
        return xs[0]
    pos = (len(xs) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def summary(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "mean": statistics.fmean(values) if values else float("nan"),
        "p50": pct(values, 50),
        "p95": pct(values, 95),
        "p99": pct(values, 99),
    }


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def bench_settings() -> Any:
    """The Settings of a benchmark run: from the environment only (no .env), built once
    per run by bench.__main__ and handed to every section (which copies it with
    overrides)."""
    from app.core.config import settings_from_environment

    return settings_from_environment()


@dataclass
class ProcMem:
    rss_mb: float
    pss_mb: float


def proc_tree_memory(pid: int, full: bool = True) -> dict[str, ProcMem]:
    """RSS and PSS (MB) of a process and each of its descendants, keyed 'pid:name'.
    full=False reads RSS only (cheap: for sampling under load; PSS then equals RSS)."""
    import psutil

    out: dict[str, ProcMem] = {}
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return out
    for p in procs:
        try:
            info = p.memory_full_info() if full else p.memory_info()
            pss = getattr(info, "pss", info.rss)
            out[f"{p.pid}:{p.name()}"] = ProcMem(info.rss / 2**20, pss / 2**20)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return out


def machine() -> dict[str, Any]:
    import psutil

    git = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "app", "ingest", "evaluation"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    return {
        "uncommitted_app_files": len(dirty),
        "cores": CORES,
        "cpu": cpu,
        "ram_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "python": platform.python_version(),
        "git": git,
        "load_avg_at_start": [round(x, 2) for x in os.getloadavg()],
        "quick": QUICK,
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
    }
