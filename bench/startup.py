"""Start-up: the time from starting gunicorn (the `make run` command, two workers) to its
first 200 on /readyz, on a quiet host and with every core busy (one CPU-bound loop per
core beside it, issue 29's "both cores busy"). Each start gets an empty VECTOR_CACHE_DIR,
as an api container has: what the worker does not find stored with the build it computes.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.common import CORES, QUICK, log
from bench.served import ensure_index
from evaluation.service import Service

WORKERS = 2
BUSY_LOOP = "while True:\n    pass\n"


@contextmanager
def busy(cores: int) -> Iterator[None]:
    """One CPU-bound loop per core for the duration of the block."""
    loops = [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(cores)]
    try:
        yield
    finally:
        for p in loops:
            p.kill()
            p.wait(timeout=10)


def time_to_ready(chroma_path: Path, timeout_s: float = 300) -> float:
    """Seconds from Popen of gunicorn to its first 200 on /readyz."""
    with tempfile.TemporaryDirectory(prefix="rag-bench-vectors-") as vectors:
        service = Service(chroma_path, WEB_CONCURRENCY=str(WORKERS), VECTOR_CACHE_DIR=vectors)
        try:
            return service.start(timeout_s=timeout_s, ready=True)
        finally:
            service.stop()


def run(chroma_path: Path) -> dict[str, Any]:
    rounds = 1 if QUICK else 3
    ensure_index(chroma_path)
    out: dict[str, Any] = {"workers": WORKERS, "rounds": rounds, "busy_loops": CORES}
    for name, ctx in (("quiet", None), ("busy", CORES)):
        times = []
        for _ in range(rounds):
            if ctx is None:
                times.append(time_to_ready(chroma_path))
            else:
                with busy(ctx):
                    times.append(time_to_ready(chroma_path))
            log(f"  start to ready ({name}): {times[-1]:.1f} s")
            time.sleep(1.0)
        out[name] = times
    return out
