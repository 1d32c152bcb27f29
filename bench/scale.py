"""One api replica against two, through the HTTPS proxy, at 32 clients (issue 28):
deploy/SCALING.md's table.

    .venv/bin/python -m bench.scale [--duration 20] [--rounds 3] [--out FILE]

For each layout, a stack of its own from the built images (`make images`), on free ports
of 127.0.0.1, torn down with its volumes afterwards:
- 1 replica: compose.yaml + deploy/compose.prod.yaml, WEB_CONCURRENCY=2;
- 2 replicas: + deploy/compose.scale.yaml (PostgreSQL feedback), WEB_CONCURRENCY=1 each.
Both have two gunicorn workers in all on this host. Each round is a closed loop of 32
clients POSTing /api/ask for `duration` seconds (bench/loadgen.py over TLS); the figures
are the median round. Memory: `docker stats` of every container, idle and at the peak of
the load. The rate limit is off (all load comes from one address)."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.common import LOOPBACK, ROOT, log
from bench.floor import questions
from bench.load import docker_stats
from bench.loadgen import run_load
from evaluation.service import free_port

CLIENTS = 32
LAYOUTS = {
    "1 replica x 2 workers": ("compose.yaml:deploy/compose.prod.yaml", "2"),
    "2 replicas x 1 worker": (
        "compose.yaml:deploy/compose.prod.yaml:deploy/compose.scale.yaml",
        "1",
    ),
}


def _bodies() -> list[dict[str, Any]]:
    return [{"question": q} for q in questions()]


def _env(files: str, workers: str, project: str, env_file: str) -> dict[str, str]:
    subnet = f"10.213.{70 + secrets.randbelow(6)}.240/28"
    prefix = subnet.rsplit(".", 1)[0]
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("COMPOSE_", "API_"))},
        "COMPOSE_PROJECT_NAME": project,
        "COMPOSE_FILE": files,
        "APP_ENV_FILE": env_file,
        "WEB_CONCURRENCY": workers,
        "FEEDBACK_DB_PASSWORD": secrets.token_hex(16),
        "HTTPS_BIND": LOOPBACK,
        "HTTPS_PORT": str(free_port()),
        "HTTP_BIND": LOOPBACK,
        "HTTP_PORT": str(free_port()),
        "EDGE_SUBNET": subnet,
        "EDGE_IP_RANGE": f"{prefix}.248/29",
        "PROXY_IP": f"{prefix}.242",
        "RATE_LIMIT_PER_MINUTE": "0",
    }


def layout(name: str, duration: float, rounds: int) -> dict[str, Any]:
    files, workers = LAYOUTS[name]
    project = f"benchscale{os.getpid()}{len(files)}"
    with tempfile.NamedTemporaryFile("w", suffix=".env", delete=False) as env_file:
        pass
    env = _env(files, workers, project, env_file.name)
    url = f"https://{LOOPBACK}:{env['HTTPS_PORT']}"

    def dc(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["docker", "compose", *args], cwd=ROOT, env=env, capture_output=True,
            text=True, timeout=timeout, check=False,
        )  # fmt: skip

    log(f"scale: {name} (project {project}, {url})")
    try:
        started = time.monotonic()
        up = dc("up", "-d", "--wait", "--no-build", "proxy")
        if up.returncode != 0:
            raise RuntimeError(f"{name}: up failed:\n{up.stderr[-2000:]}")
        up_s = time.monotonic() - started
        run_load(url, "/api/ask", _bodies(), 8, 8.0)  # warm every worker
        idle = docker_stats(project)
        peak: dict[str, float] = {}
        lock = threading.Lock()

        def sample() -> None:
            for k, v in docker_stats(project).items():
                with lock:
                    peak[k] = max(peak.get(k, 0.0), v)

        results = []
        for r in range(rounds):
            res = run_load(url, "/api/ask", _bodies(), CLIENTS, duration, sample, 4.0).as_dict()
            log(
                f"  round {r + 1}: {res['throughput_rps']:.1f} req/s, p50 "
                f"{res['latency_ms']['p50']:.0f} ms, p99 {res['latency_ms']['p99']:.0f} ms, "
                f"errors {res['http_errors']}+{res['conn_errors']}"
            )
            results.append(res)
        median = sorted(results, key=lambda x: x["throughput_rps"])[len(results) // 2]
        return {
            "layout": name,
            "up_s": round(up_s, 1),
            "rounds_rps": [round(x["throughput_rps"], 1) for x in results],
            "rps": round(median["throughput_rps"], 1),
            "p50_ms": round(median["latency_ms"]["p50"], 1),
            "p99_ms": round(median["latency_ms"]["p99"], 1),
            "errors": sum(x["http_errors"] + x["conn_errors"] for x in results),
            "requests": sum(x["requests"] for x in results),
            "memory_idle_mb": {k: round(v) for k, v in sorted(idle.items())},
            "memory_peak_mb": {k: round(v) for k, v in sorted(peak.items())},
        }
    finally:
        dc("--profile", "maintenance", "down", "-v", "--remove-orphans", timeout=300)
        Path(env_file.name).unlink(missing_ok=True)


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| layout | req/s (median of rounds) | rounds | p50 | p99 | errors | memory at peak, MiB |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        memory = ", ".join(f"{k} {v}" for k, v in r["memory_peak_mb"].items())
        lines.append(
            f"| {r['layout']} | {r['rps']} | {' / '.join(map(str, r['rounds_rps']))} | "
            f"{r['p50_ms']:.0f} ms | {r['p99_ms']:.0f} ms | {r['errors']} of {r['requests']} "
            f"| {memory} |"
        )
    one, two = rows[0]["rps"], rows[-1]["rps"]
    lines.append(f"\n2 replicas / 1 replica: {two / one:.2f}x")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "artifacts" / "bench" / "scale.json")
    parser.add_argument("--only", choices=list(LAYOUTS), help="one layout")
    args = parser.parse_args()
    names = [args.only] if args.only else list(LAYOUTS)
    rows = [layout(name, args.duration, args.rounds) for name in names]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=2) + "\n")
    print(table(rows))
    print(f"\n(median of {args.rounds} rounds of {args.duration:.0f} s; {args.out})")


if __name__ == "__main__":
    main()
