"""A real running service, for the tests and the red-team runner: `python -m ingest`
into a temporary embedded store, then gunicorn (uvicorn workers) on a free loopback port.
Real model, real store, real HTTP."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def service_env(chroma_path: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(
            ("CHROMA_", "CHUNK_", "GENERATOR", "LLM_", "GUNICORN_", "API_", "FEEDBACK_", "ADMIN_")
        )
    }
    env.update(
        HF_HUB_OFFLINE="1",
        PYTHONPATH=str(ROOT),
        CHROMA_MODE="embedded",
        CHROMA_PATH=str(chroma_path),
        WEB_CONCURRENCY="1",
        LOG_LEVEL="WARNING",
        # Each test service keeps its answer records beside its index, never in data/.
        FEEDBACK_DATABASE_URL=f"sqlite:///{chroma_path.parent / 'feedback' / 'feedback.db'}",
    )
    env.update(extra)
    return env


def ingest(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ingest", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


class Service:
    """gunicorn serving app.api.main:app on 127.0.0.1:<port>."""

    def __init__(self, chroma_path: Path, **extra_env: str):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = service_env(chroma_path, GUNICORN_BIND=f"127.0.0.1:{self.port}", **extra_env)
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = chroma_path.parent / f"gunicorn-{self.port}.log"

    def start(self, timeout_s: float = 120, ready: bool = False) -> float:
        """Start gunicorn and wait until /readyz answers (200 or 503; 200 only with
        `ready`). Returns the seconds from the start of the process to that answer. A
        service that exits early or does not answer within `timeout_s` is stopped (its
        whole process group) before the error is raised: no start-up outlives its test."""
        log = self.log_path.open("ab")
        started = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "app/gunicorn_conf.py", "app.api.main:app"],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        try:
            return self._wait(started, timeout_s, (200,) if ready else (200, 503))
        except BaseException:
            self.stop()
            raise

    def _wait(self, started: float, timeout_s: float, statuses: tuple[int, ...]) -> float:
        assert self.proc is not None
        deadline = started + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited early:\n{self.logs()}")
            try:
                if httpx.get(f"{self.url}/readyz", timeout=2).status_code in statuses:
                    return time.monotonic() - started
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"service did not start within {timeout_s} s:\n{self.logs()}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self.proc = None

    def logs(self) -> str:
        return self.log_path.read_text(errors="replace")[-5000:] if self.log_path.exists() else ""
