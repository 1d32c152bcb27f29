"""Load on loopback: the embedded default (gunicorn on 127.0.0.1) at concurrency 1, 8,
32, 64; a worker x thread sweep; the compose stack at the same levels. Memory of the
serving processes at idle and under load."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.common import CORES, LOOPBACK, QUICK, ROOT, log
from bench.floor import questions, warm_up
from bench.loadgen import run_load
from bench.served import served, service_memory, wait_ready
from evaluation.service import free_port

LEVELS = [1, 8, 32, 64]
PATH = "/api/ask"


def _bodies() -> list[dict[str, Any]]:
    return [{"question": q} for q in questions()]


def _levels(
    url: str, duration: float, sampler: Any = None, every_s: float = 0.5
) -> list[dict[str, Any]]:
    rows = []
    for c in LEVELS:
        res = run_load(url, PATH, _bodies(), c, duration, sampler, every_s).as_dict()
        log(
            f"  c={c}: {res['throughput_rps']:.0f} req/s, p95 {res['latency_ms']['p95']:.1f} ms,"
            f" errors {res['http_errors']}+{res['conn_errors']}"
        )
        rows.append(res)
    return rows


def embedded(chroma_path: Path) -> dict[str, Any]:
    duration = 3.0 if QUICK else 10.0
    workers = 2
    out: dict[str, Any] = {"workers": workers, "duration_s": duration, "path": PATH}
    log(f"load: embedded default ({workers} workers), {LEVELS} x {duration:.0f} s")
    with served(chroma_path, workers) as service:
        time.sleep(1.0)
        out["memory_idle_cold"] = service_memory(service)
        warm_up(service.url, _bodies(), workers)
        time.sleep(1.0)
        out["memory_idle_warm"] = service_memory(service)
        peak: dict[str, float] = {"total_rss_mb": 0.0, "max_worker_rss_mb": 0.0}

        def sample() -> None:
            mem = service_memory(service, full=False)
            peak["total_rss_mb"] = max(peak["total_rss_mb"], mem["total_rss_mb"])
            peak["max_worker_rss_mb"] = max(
                peak["max_worker_rss_mb"], max(mem["workers_rss_mb"], default=0.0)
            )

        out["levels"] = _levels(service.url, duration, sample)
        out["memory_under_load_peak"] = peak
        out["memory_after_load"] = service_memory(service)
    return out


def sweep(chroma_path: Path) -> dict[str, Any]:
    """Throughput at concurrency 32 for each workers x threads-per-worker setting."""
    configs = [(1, 2), (2, 1)] if QUICK else [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1)]
    duration = 3.0 if QUICK else 6.0
    concurrency = 32
    rows = []
    log(f"load: worker/thread sweep at c={concurrency}, {duration:.0f} s each: {configs}")
    for workers, threads in configs:
        with served(chroma_path, workers, threads) as service:
            warm_up(service.url, _bodies(), workers)
            res = run_load(service.url, PATH, _bodies(), concurrency, duration).as_dict()
            mem = service_memory(service)
        res.update(workers=workers, threads=threads, total_rss_mb=mem["total_rss_mb"])
        log(
            f"  {workers}w x {threads}t: {res['throughput_rps']:.0f} req/s, "
            f"p95 {res['latency_ms']['p95']:.1f} ms, "
            f"errors {res['http_errors']}+{res['conn_errors']}"
        )
        rows.append(res)
    best = max(rows, key=lambda r: r["throughput_rps"])
    return {
        "concurrency": concurrency,
        "duration_s": duration,
        "rows": rows,
        "best": {"workers": best["workers"], "threads": best["threads"]},
    }


def pipeline_sweep(chroma_path: Path) -> dict[str, Any]:
    """The embedded default (2 workers) at 64 clients for several PIPELINE_THREADS: the
    questions a worker works on at once (40 is what the default thread pool would allow)."""
    values = [1, 2, 40]
    duration = 3.0 if QUICK else 6.0
    concurrency = 64
    rows = []
    log(f"load: PIPELINE_THREADS sweep at c={concurrency}, {duration:.0f} s each: {values}")
    for value in values:
        with served(chroma_path, 2, PIPELINE_THREADS=str(value)) as service:
            warm_up(service.url, _bodies(), 2)
            res = run_load(service.url, PATH, _bodies(), concurrency, duration).as_dict()
        res.update(pipeline_threads=value)
        log(
            f"  PIPELINE_THREADS={value}: {res['throughput_rps']:.0f} req/s, "
            f"p99 {res['latency_ms']['p99']:.1f} ms, "
            f"errors {res['http_errors']}+{res['conn_errors']}"
        )
        rows.append(res)
    return {"concurrency": concurrency, "duration_s": duration, "rows": rows}


# -- compose stack ---------------------------------------------------------------------


def _images_present() -> list[str]:
    missing = []
    for name in ("cartoes-api", "cartoes-ingest", "cartoes-chroma"):
        r = subprocess.run(
            ["docker", "image", "inspect", f"{name}:latest"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if r.returncode != 0:
            missing.append(name)
    return missing


def docker_stats(project: str) -> dict[str, float]:
    """MB used by each running container of the project (`docker stats --no-stream`)."""
    ids = subprocess.run(
        ["docker", "ps", "-q", "--filter", f"label=com.docker.compose.project={project}"],
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.split()
    if not ids:
        return {}
    r = subprocess.run(
        ["docker", "stats", "--no-stream", "--format", "{{.Name}}\t{{.MemUsage}}", *ids],
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = {}
    for line in r.stdout.splitlines():
        name, _, usage = line.partition("\t")
        used = usage.split("/")[0].strip()
        out[name.replace(f"{project}-", "").rsplit("-", 1)[0]] = _to_mb(used)
    return out


def _to_mb(text: str) -> float:
    units = {
        "B": 1 / 2**20,
        "KiB": 1 / 1024,
        "MiB": 1,
        "GiB": 1024,
        "kB": 1 / 1024,
        "MB": 1,
        "GB": 1024,
    }
    for unit in sorted(units, key=len, reverse=True):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * units[unit]
    return float("nan")


def compose_stack() -> dict[str, Any]:
    if shutil.which("docker") is None:
        return {"skipped": "docker not found"}
    missing = _images_present()
    if missing:
        return {"skipped": f"images missing ({', '.join(missing)}): run `make images`"}
    project = f"bench{os.getpid()}"
    port = free_port()
    env_file = tempfile.NamedTemporaryFile("w", suffix=".env", delete=False)
    env_file.close()
    env = {
        **os.environ,
        "API_PORT": str(port),
        "API_BIND": LOOPBACK,
        "APP_ENV_FILE": env_file.name,
        "WEB_CONCURRENCY": "2",
    }
    dc = ["docker", "compose", "-p", project, "-f", str(ROOT / "compose.yaml")]
    url = f"http://{LOOPBACK}:{port}"
    duration = 3.0 if QUICK else 10.0
    out: dict[str, Any] = {"project": project, "workers": 2, "duration_s": duration}
    log(f"load: compose stack (project {project}, API on {url})")
    try:
        started = time.monotonic()
        up = subprocess.run(
            [*dc, "up", "-d", "--wait", "api"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if up.returncode != 0:
            logs = subprocess.run(
                [*dc, "logs", "--no-color", "--tail", "15", "ingest", "api"],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            return {
                "skipped": f"compose up failed: {up.stderr[-600:]}\nlogs: {logs.stdout[-1500:]}"
            }
        wait_ready(url, timeout_s=120)
        out["startup_s"] = time.monotonic() - started
        out["memory_idle_cold_mb"] = docker_stats(project)
        warm_up(url, _bodies(), 2)
        out["memory_idle_warm_mb"] = docker_stats(project)
        peak: dict[str, float] = {}
        lock = threading.Lock()

        def sample() -> None:
            stats = docker_stats(project)
            with lock:
                for k, v in stats.items():
                    peak[k] = max(peak.get(k, 0.0), v)

        out["levels"] = _levels(url, duration, sample, every_s=4.0)
        out["memory_under_load_peak_mb"] = peak
        return out
    finally:
        subprocess.run(
            [*dc, "--profile", "maintenance", "down", "-v", "--remove-orphans"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        Path(env_file.name).unlink(missing_ok=True)
        log(f"load: compose project {project} removed (with volumes)")


def run(chroma_path: Path, with_compose: bool = True) -> dict[str, Any]:
    return {
        "cores": CORES,
        "embedded": embedded(chroma_path),
        "sweep": sweep(chroma_path),
        "pipeline_sweep": pipeline_sweep(chroma_path),
        "compose": compose_stack() if with_compose else {"skipped": "--no-compose"},
    }


if __name__ == "__main__":  # pragma: no cover - manual use
    print(json.dumps(compose_stack(), indent=1))
