from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.service import Service, free_port, ingest, service_env

ROOT = Path(__file__).resolve().parents[2]
CHROMA_BIN = Path(sys.executable).with_name("chroma")


class ChromaServer:
    """A real Chroma server process (`chroma run`) on loopback."""

    def __init__(self, path: Path, port: int):
        self.path, self.port = path, port
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                str(CHROMA_BIN),
                "run",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--path",
                str(self.path),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(
                    f"http://127.0.0.1:{self.port}/api/v2/heartbeat", timeout=1
                ).is_success:
                    return
            except httpx.TransportError:
                time.sleep(0.2)
        self.stop()  # not left running after pytest ends
        raise RuntimeError(f"chroma server did not start on port {self.port} within 60 s")

    def stop(self) -> None:
        if self.proc:
            self.proc.terminate()
            self.proc.wait(timeout=30)
            self.proc = None


@pytest.fixture
def chroma_server(tmp_path: Path) -> Iterator[ChromaServer]:
    server = ChromaServer(tmp_path / "server-data", free_port())
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """The service with default settings over a real ingest of the bundled corpus."""
    chroma = tmp_path_factory.mktemp("api") / "chroma"
    done = ingest(service_env(chroma))
    assert done.returncode == 0, done.stderr
    svc = Service(chroma)
    svc.start()
    yield svc
    svc.stop()
