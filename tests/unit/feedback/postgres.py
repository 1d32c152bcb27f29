"""A throwaway PostgreSQL server from Debian's `postgresql` package: initdb into a
temporary directory (as the `postgres` user when running as root), listening only on a
unix socket in that directory (no TCP), stopped and deleted afterwards."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import uuid
from pathlib import Path

import psycopg

from tests.polling import wait_until
from tests.service import free_port

PG_ROOT = Path("/usr/lib/postgresql")
INSTALL_HINT = "apt-get install -y postgresql"


def pg_bin() -> Path:
    found = sorted(PG_ROOT.glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if not found:
        raise RuntimeError(
            f"PostgreSQL server binaries not found under {PG_ROOT}: run `{INSTALL_HINT}` "
            "(make test installs it on CI)"
        )
    return found[-1].parent


class PostgresServer:
    def __init__(self) -> None:
        self.bin = pg_bin()
        self.base = Path(tempfile.mkdtemp(prefix="feedback-pg-"))
        self.data = self.base / "data"
        self.socket_dir = self.base / "sock"
        self.port = free_port()  # names the socket file; nothing listens on TCP
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = self.base / "postgres.log"

    def _as_owner(self, argv: list[str]) -> list[str]:
        return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv

    def start(self, timeout_s: float = 60) -> None:
        self.socket_dir.mkdir()
        if os.geteuid() == 0:
            shutil.chown(self.base, "postgres", "postgres")
            shutil.chown(self.socket_dir, "postgres", "postgres")
        subprocess.run(
            self._as_owner(
                [str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust"]
                + ["-E", "UTF8", "--locale=C", "--no-sync"]
            ),
            check=True,
            capture_output=True,
            timeout=120,
        )
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                self._as_owner(
                    [str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port)]
                    + ["-k", str(self.socket_dir), "-c", "listen_addresses=", "-F"]
                ),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        proc = self.proc

        def accepting() -> bool:
            if proc.poll() is not None:
                raise RuntimeError(f"postgres exited early:\n{self.log.read_text()[-3000:]}")
            try:
                with psycopg.connect(self.dsn("postgres"), connect_timeout=2):
                    return True
            except psycopg.OperationalError:
                return False

        wait_until(accepting, timeout_s, interval=0.2, what="postgres to accept connections")

    def dsn(self, database: str) -> str:
        return f"host={self.socket_dir} port={self.port} user=postgres dbname={database}"

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://postgres@/{database}?host={self.socket_dir}&port={self.port}"

    def new_database(self) -> str:
        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.dsn("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return name

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)  # "fast" shutdown
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self.proc = None
        shutil.rmtree(self.base, ignore_errors=True)
