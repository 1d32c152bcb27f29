"""Chroma SIGKILLed under heavy traffic, again and again: does any request wait past the
deadline? The loop behind docs/reliability.md's "kill loop" figure.

Each run: CLIENTS threads ask /api/ask in a loop (a new connection per request), chroma
is killed (SIGKILL), stays down OUTAGE_S, is started again; the run ends once a cited
answer comes back after chroma is healthy. A watchdog looks for requests in flight for
longer than the deadline; the first time it sees one in a run it takes a py-spy dump of
every gunicorn worker (host PIDs from `docker top`) into DUMP_DIR.

    # 30 runs, 32 clients, against a stack brought up here from the built images:
    .venv/bin/python -m tests.compose.kill_loop --runs 30 --clients 32
    # the same against other images (e.g. an older build tagged `orig`):
    IMAGE_TAG=orig .venv/bin/python -m tests.compose.kill_loop --runs 30

tests/compose/test_kill_loop.py runs a short version in `make test`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.service import free_port

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
QUESTIONS = [
    "Posso tomar dipirona com febre?",
    "Quanto paracetamol posso tomar por dia?",
    "O que fazer em caso de pressão alta?",
]
OUTAGE_S = 3.0


@dataclass(frozen=True)
class Outcome:
    run: int
    started: float
    ended: float
    status: int | None  # None: transport error
    code: str | None
    error: str | None
    cited: bool

    @property
    def seconds(self) -> float:
        return self.ended - self.started


@dataclass
class RunReport:
    run: int
    requests: int
    ok: int
    unavailable: int
    other: list[str]
    slowest_s: float
    over_deadline: int
    recovered_s: float
    dumps: list[str] = field(default_factory=list)


class Compose:
    """`docker compose` on one project, from the repository root."""

    def __init__(self, project: str, env: dict[str, str]):
        self.project, self.env = project, env

    def __call__(
        self, *args: str, timeout: float = 300, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["docker", "compose", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=check,
        )

    def container(self, service: str) -> str:
        return self("ps", "-a", "-q", service).stdout.strip()

    def health(self, service: str) -> str:
        out = subprocess.run(
            ["docker", "inspect", "-f", "{{if .State.Health}}{{.State.Health.Status}}"
             "{{else}}{{.State.Status}}{{end}}", self.container(service)],
            capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
        return out.stdout.strip()

    def wait_healthy(self, service: str, timeout: float) -> None:
        end = time.monotonic() + timeout
        while self.health(service) != "healthy":
            if time.monotonic() > end:
                raise RuntimeError(f"{service} not healthy after {timeout:.0f} s")
            time.sleep(0.5)


class Traffic:
    def __init__(self, url: str, clients: int, run: int, client_timeout_s: float = 120):
        self.url, self.n, self.run, self.timeout = url, clients, run, client_timeout_s
        self.outcomes: list[Outcome] = []
        self.in_flight: dict[int, float] = {}
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    def _loop(self, k: int) -> None:
        limits = httpx.Limits(max_keepalive_connections=0)
        with httpx.Client(base_url=self.url, timeout=self.timeout, limits=limits) as c:
            i = k
            while not self._stop.is_set():
                t0 = time.monotonic()
                with self._lock:
                    self.in_flight[k] = t0
                try:
                    res = c.post("/api/ask", json={"question": QUESTIONS[i % len(QUESTIONS)]})
                except httpx.HTTPError as exc:
                    out = Outcome(self.run, t0, time.monotonic(), None, None, repr(exc), False)
                else:
                    code, cited = None, False
                    try:
                        body = res.json()
                        if res.status_code == 200:
                            cited = bool(body["citations"]) and bool(body["answer"].strip())
                        else:
                            code = body["error"]["code"]
                    except (ValueError, KeyError, TypeError):
                        code = f"non-JSON body: {res.text[:80]!r}"
                    status = res.status_code
                    out = Outcome(self.run, t0, time.monotonic(), status, code, None, cited)
                with self._lock:
                    self.in_flight.pop(k, None)
                    self.outcomes.append(out)
                i += 1

    def start(self) -> Traffic:
        for k in range(self.n):
            t = threading.Thread(target=self._loop, args=(k,), daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def oldest_in_flight(self) -> float:
        now = time.monotonic()
        with self._lock:
            return max((now - t for t in self.in_flight.values()), default=0.0)

    def since(self, t: float) -> list[Outcome]:
        with self._lock:
            return [o for o in self.outcomes if o.started >= t]

    def stop(self) -> list[Outcome]:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=self.timeout + 10)
        return list(self.outcomes)


def py_spy_dump(dc: Compose, dest: Path, tag: str) -> str:
    """py-spy dump of every gunicorn worker of the api container (as root on the host)."""
    py_spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    top = subprocess.run(
        ["docker", "top", dc.container("api"), "-eo", "pid,ppid,args"],
        capture_output=True, text=True, timeout=30, check=False,
    ).stdout.splitlines()[1:]  # fmt: skip
    rows = [line.split(None, 2) for line in top if "gunicorn" in line]
    master = {pid for pid, ppid, _ in rows if not any(ppid == p for p, _, _ in rows)}
    workers = [pid for pid, ppid, _ in rows if ppid in master]
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / f"py-spy-{tag}.txt"
    with path.open("w") as out:
        for pid in workers:
            res = subprocess.run(
                [py_spy, "dump", "--pid", pid, "--locals"],
                capture_output=True, text=True, timeout=60, check=False,
            )  # fmt: skip
            out.write(f"=== worker (host pid {pid})\n{res.stdout}{res.stderr}\n")
    return str(path)


def one_run(
    dc: Compose,
    url: str,
    run: int,
    clients: int,
    deadline_s: float,
    dump_dir: Path,
    dump_after_s: float | None = None,
) -> tuple[RunReport, list[Outcome]]:
    traffic = Traffic(url, clients, run).start()
    dumps: list[str] = []
    watching = threading.Event()

    def watchdog() -> None:
        while not watching.is_set():
            if traffic.oldest_in_flight() > (dump_after_s or deadline_s + 2) and not dumps:
                dumps.append(py_spy_dump(dc, dump_dir, f"run{run:02d}"))
            time.sleep(0.5)

    dog = threading.Thread(target=watchdog, daemon=True)
    dog.start()
    try:
        time.sleep(2.0)
        t_kill = time.monotonic()
        dc("kill", "chroma", timeout=60)
        end = time.monotonic() + OUTAGE_S + 30
        while not any(o.status == 503 for o in traffic.since(t_kill)) and time.monotonic() < end:
            time.sleep(0.2)
        time.sleep(OUTAGE_S)
        dc("start", "chroma", timeout=120)
        dc.wait_healthy("chroma", timeout=120)
        t_healthy = time.monotonic()
        end = t_healthy + 120
        while not any(o.cited for o in traffic.since(t_healthy)):
            if time.monotonic() > end:
                break
            time.sleep(0.2)
        recovered = time.monotonic() - t_healthy
        time.sleep(1.0)
    finally:
        outcomes = traffic.stop()
        watching.set()
        dog.join(timeout=90)
    other = sorted(
        {f"{o.status} {o.code or o.error}" for o in outcomes if o.status not in (200, 503)}
        | {f"503 {o.code}" for o in outcomes if o.status == 503 and o.code != "store_unavailable"}
    )
    report = RunReport(
        run=run,
        requests=len(outcomes),
        ok=sum(o.status == 200 and o.cited for o in outcomes),
        unavailable=sum(o.status == 503 for o in outcomes),
        other=other,
        slowest_s=round(max((o.seconds for o in outcomes), default=0.0), 2),
        over_deadline=sum(o.seconds > deadline_s for o in outcomes),
        recovered_s=round(recovered, 1),
        dumps=dumps,
    )
    return report, outcomes


def kill_loop(
    dc: Compose,
    url: str,
    runs: int,
    clients: int,
    deadline_s: float,
    dump_dir: Path,
    dump_after_s: float | None = None,
    say: Callable[[str], None] = print,
) -> list[RunReport]:
    reports = []
    for run in range(1, runs + 1):
        report, _ = one_run(dc, url, run, clients, deadline_s, dump_dir, dump_after_s)
        reports.append(report)
        say(json.dumps(report.__dict__))
    return reports


def summary(reports: list[RunReport], deadline_s: float) -> str:
    total = sum(r.requests for r in reports)
    over = sum(r.over_deadline for r in reports)
    return (
        f"{len(reports)} runs, {total} requests ({sum(r.ok for r in reports)} cited 200, "
        f"{sum(r.unavailable for r in reports)} x 503), {over} over the {deadline_s:g} s "
        f"deadline; slowest {max(r.slowest_s for r in reports):.2f} s; recovery after "
        f"chroma healthy {min(r.recovered_s for r in reports)}-"
        f"{max(r.recovered_s for r in reports)} s; other outcomes: "
        f"{sorted({x for r in reports for x in r.other}) or 'none'}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.compose.kill_loop")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--deadline", type=float, default=10.0, help="REQUEST_DEADLINE_S")
    parser.add_argument("--dump-dir", type=Path, default=ROOT / "artifacts" / "kill-loop")
    parser.add_argument(
        "--dump-after",
        type=float,
        default=None,
        help="py-spy dump when a request is in flight this long (default: deadline + 2 s)",
    )
    args = parser.parse_args(argv)

    project = f"cartoes-kill-{uuid.uuid4().hex[:8]}"
    port = free_port()
    env_file = Path(tempfile.mkdtemp()) / "empty.env"
    env_file.write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COMPOSE_", "API_"))}
    env.update(
        COMPOSE_PROJECT_NAME=project,
        APP_ENV_FILE=str(env_file),
        API_BIND=HOST,
        API_PORT=str(port),
    )
    dc = Compose(project, env)
    started = time.monotonic()
    try:
        dc("up", "-d", "--wait", "--no-build", "api", timeout=600)
        reports = kill_loop(
            dc,
            f"http://{HOST}:{port}",
            args.runs,
            args.clients,
            args.deadline,
            args.dump_dir,
            args.dump_after,
        )
    finally:
        logs = dc("logs", "--no-color", "--timestamps", "api", check=False, timeout=120)
        args.dump_dir.mkdir(parents=True, exist_ok=True)
        (args.dump_dir / f"{project}-api.log").write_text(logs.stdout + logs.stderr)
        dc("down", "--volumes", "--remove-orphans", check=False, timeout=300)
    print(summary(reports, args.deadline), f"({time.monotonic() - started:.0f} s)")
    return 0 if all(r.over_deadline == 0 and not r.other for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
