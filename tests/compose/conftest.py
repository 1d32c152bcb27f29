"""Fixtures of the compose integration tests: the project's real stack (compose.yaml,
images built from this working tree) under a unique project name, on 127.0.0.1 only.

A missing engine or compose plugin FAILS these tests (it never skips them): run
`make docker-engine` (or `.ci/run`, which does it)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Generator, Iterator
from pathlib import Path

import httpx
import pytest

os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")

from testcontainers.compose import DockerCompose  # noqa: E402

from tests.service import free_port  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"  # the only address test traffic goes to
BUILD_TIMEOUT_S = int(os.environ.get("COMPOSE_TEST_BUILD_TIMEOUT_S", "2400"))


def _require_engine() -> None:
    if shutil.which("docker") is None:
        pytest.fail("no docker CLI: run `make docker-engine` (installs engine + compose plugin)")
    info = subprocess.run(["docker", "info"], capture_output=True, text=True)
    if info.returncode != 0:
        pytest.fail(
            "no Docker engine answers (`docker info` failed): run `make docker-engine`\n"
            + info.stderr[-2000:]
        )
    compose = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True)
    if compose.returncode != 0:
        pytest.fail("no Compose v2 plugin (`docker compose version` failed): `make docker-engine`")


class Stack:
    """The running compose project, with helpers the tests share."""

    def __init__(self, compose: DockerCompose, project: str, port: int, env: dict[str, str]):
        self.compose, self.project, self.port, self.env = compose, project, port, env
        self.base_url = f"http://{HOST}:{port}"

    def client(self, timeout: float = 30.0, headers: dict[str, str] | None = None) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, timeout=timeout, headers=headers)

    def dc(
        self, *args: str, timeout: float = 600, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """`docker compose <args>` on this project."""
        return subprocess.run(
            ["docker", "compose", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=check,
        )

    def container_id(self, service: str) -> str:
        return self.dc("ps", "-a", "-q", service).stdout.strip()

    def inspect(self, service: str) -> dict:
        out = subprocess.run(
            ["docker", "inspect", self.container_id(service)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return json.loads(out)[0]

    def health(self, service: str) -> str:
        state = self.inspect(service)["State"]
        return state.get("Health", {}).get("Status", state["Status"])

    def wait_healthy(self, service: str, timeout: float) -> float:
        """Seconds until `service` is healthy; fails after `timeout`."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            if self.health(service) == "healthy":
                return time.monotonic() - start
            time.sleep(0.5)
        pytest.fail(f"{service} not healthy after {timeout} s (status: {self.health(service)})")

    def logs(self) -> str:
        res = self.dc(
            "--profile",
            "maintenance",
            "logs",
            "--no-color",
            "--timestamps",
            "--tail",
            "300",
            check=False,
            timeout=60,
        )
        return res.stdout + res.stderr

    def readyz(self) -> httpx.Response:
        with self.client(timeout=10) as c:
            return c.get("/readyz")


@pytest.fixture(scope="session")
def built_images() -> None:
    """Builds the images from this working tree (online or air-gapped, as `make images`)."""
    _require_engine()
    start = time.monotonic()
    res = subprocess.run(
        ["bash", str(ROOT / "scripts" / "docker-images.sh")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
    )
    if res.returncode != 0:
        out = f"{res.stdout[-4000:]}\n{res.stderr[-6000:]}"
        pytest.fail(f"image build failed (scripts/docker-images.sh):\n{out}")
    print(f"\nimages built/checked in {time.monotonic() - start:.0f} s\n{res.stdout[-800:]}")


@pytest.fixture(scope="module")
def stack_settings() -> dict[str, str]:
    """Settings written to the stack's env file (APP_ENV_FILE): none by default. A test
    module overrides this fixture to run its stack with, e.g., ADMIN_API_KEY."""
    return {}


@pytest.fixture(scope="module")
def stack(
    built_images: None,
    tmp_path_factory: pytest.TempPathFactory,
    stack_settings: dict[str, str],
) -> Iterator[Stack]:
    project = f"cartoes-test-{uuid.uuid4().hex[:8]}"
    port = free_port()
    # Hermetic: no developer .env, a unique project, the API on a free loopback port.
    env = _stack_env(tmp_path_factory, project, port, stack_settings)
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)  # DockerCompose runs `docker compose` with this process's env
    compose = DockerCompose(
        context=str(ROOT),
        compose_file_name="compose.yaml",
        env_file=env["APP_ENV_FILE"],
        services=["api"],  # `up --wait` on the long-running service (ingest is one-shot)
        wait=True,
    )
    stack = Stack(compose, project, port, env)
    try:
        start = time.monotonic()
        try:
            compose.start()
        except subprocess.CalledProcessError as exc:
            pytest.fail(
                "`docker compose up --wait api` failed: "
                f"{exc.stderr.decode(errors='ignore')[-3000:]}"
                f"\n--- container logs ---\n{stack.logs()}"
            )
        print(f"\nstack {project} up in {time.monotonic() - start:.0f} s on {stack.base_url}")
        yield stack
    finally:
        stack.dc(
            "--profile",
            "maintenance",
            "down",
            "--volumes",
            "--remove-orphans",
            check=False,
            timeout=180,
        )
        os.environ.clear()
        os.environ.update(saved)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """On a failure, attach the stack's container logs to the report."""
    report = yield
    if report.failed and call.when in ("call", "setup"):
        stack = getattr(item, "funcargs", {}).get("stack")
        if isinstance(stack, Stack):
            report.sections.append(("compose logs", stack.logs()))
    return report


# --- Fixtures of test_faults.py (appended; the fixtures above are unchanged) ------------


def _stack_env(
    tmp_path_factory: pytest.TempPathFactory,
    project: str,
    port: int,
    settings: dict[str, str] | None = None,
) -> dict:
    """The environment of `docker compose` for one project; `settings` go to its env
    file (the containers' settings), nothing from a developer's .env."""
    empty_env = tmp_path_factory.mktemp("compose") / "stack.env"
    empty_env.write_text("".join(f"{k}={v}\n" for k, v in (settings or {}).items()))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COMPOSE_", "API_"))}
    env.update(
        COMPOSE_PROJECT_NAME=project,
        APP_ENV_FILE=str(empty_env),
        API_BIND=HOST,
        API_PORT=str(port),
        COMPOSE_BAKE="false",
    )
    return env


@pytest.fixture(scope="module")
def small_disk_stack(
    built_images: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    """The stack with tests/compose/small-disk.yaml: Chroma's data on a 64 MB tmpfs.

    COMPOSE_FILE names both files, so every `docker compose` call of Stack.dc (run, exec,
    logs, down) sees the override and never recreates chroma without it."""
    project = f"cartoes-disk-{uuid.uuid4().hex[:8]}"
    port = free_port()
    env = _stack_env(tmp_path_factory, project, port)
    env["COMPOSE_FILE"] = "compose.yaml:tests/compose/small-disk.yaml"
    stack = Stack(None, project, port, env)  # type: ignore[arg-type]
    try:
        start = time.monotonic()
        up = stack.dc("up", "-d", "--wait", "api", timeout=600, check=False)
        if up.returncode != 0:
            pytest.fail(
                f"`docker compose up --wait api` (small disk) failed:\n{up.stderr[-3000:]}"
                f"\n--- container logs ---\n{stack.logs()}"
            )
        print(f"\nstack {project} (small disk) up in {time.monotonic() - start:.0f} s")
        yield stack
    finally:
        stack.dc(
            "--profile",
            "maintenance",
            "down",
            "--volumes",
            "--remove-orphans",
            check=False,
            timeout=180,
        )
