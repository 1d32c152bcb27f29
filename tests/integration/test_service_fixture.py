"""The test service fixture (tests.service.Service) leaves no process behind when the
start-up it waits for fails: the gunicorn it started, workers included, is stopped before
the error reaches the test (issue 29: a timed-out service outlived pytest)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from evaluation import service as service_module
from tests.service import Service, free_port


def started(monkeypatch: pytest.MonkeyPatch) -> list[subprocess.Popen[bytes]]:
    """The processes Service.start launches, as they are launched."""
    procs: list[subprocess.Popen[bytes]] = []
    real = subprocess.Popen

    def popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        proc = real(*args, **kwargs)
        procs.append(proc)
        return proc

    monkeypatch.setattr(service_module.subprocess, "Popen", popen)
    return procs


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.slow
def test_a_start_that_times_out_stops_the_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    procs = started(monkeypatch)
    svc = Service(tmp_path / "chroma")
    # gunicorn serves, on another port than the one polled: /readyz never answers there
    svc.env["GUNICORN_BIND"] = f"127.0.0.1:{free_port()}"
    with pytest.raises(RuntimeError, match="did not start within 20 s"):
        svc.start(timeout_s=20)
    assert len(procs) == 1
    proc = procs[0]
    # still running at the deadline (an exit is "exited early"), then stopped: gunicorn
    # ends 0 on the SIGTERM of Service.stop
    assert proc.returncode == 0
    assert not group_alive(proc.pid)  # nor any worker of its process group
    assert svc.proc is None


def test_a_service_that_exits_early_is_reported_and_reaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    procs = started(monkeypatch)
    svc = Service(tmp_path / "chroma", WEB_CONCURRENCY="0")  # refused by Settings
    with pytest.raises(RuntimeError, match="exited early"):
        svc.start(timeout_s=60)
    assert len(procs) == 1 and procs[0].returncode not in (None, 0)
    assert not group_alive(procs[0].pid)
    assert svc.proc is None
