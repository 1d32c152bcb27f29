"""A broken corpus never takes the service down (compose): with a valid index in the
volume, `down` + `up` with a misspelt field in a card keeps the API serving that index,
says so on /readyz, logs every problem at ERROR, and `ingest-clean` still exits 2. With
no index at all, the API stays down (ingest exits 2, api never starts).
Table of results: docs/reliability.md."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.compose.conftest import ROOT, Stack, _stack_env
from tests.service import free_port

pytestmark = [pytest.mark.compose, pytest.mark.slow]

OVERRIDE = "tests/compose/synthetic-corpus.yaml"  # the ingest of `up` reads SYNTH_CORPUS_DIR


def broken_corpus(dest: Path) -> Path:
    shutil.copytree(ROOT / "kb" / "cards", dest)
    card = dest / "card-012.md"
    card.write_text(card.read_text(encoding="utf-8").replace("title:", "tittle:", 1))
    dest.chmod(0o755)
    for path in dest.iterdir():
        path.chmod(0o644)
    return dest


def compose(env: dict[str, str], *args: str, timeout: float = 600):  # noqa: ANN201
    return subprocess.run(
        ["docker", "compose", "-f", "compose.yaml", "-f", OVERRIDE, *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip


@pytest.fixture
def empty_project(
    built_images: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, str]]:
    project = f"cartoes-empty-{uuid.uuid4().hex[:8]}"
    env = _stack_env(tmp_path_factory, project, free_port())
    yield env
    compose(env, "--profile", "maintenance", "down", "--volumes", "--remove-orphans")


def test_valid_index_keeps_serving_when_the_corpus_is_refused(stack: Stack, tmp_path: Path) -> None:
    before = stack.readyz().json()
    assert before["corpus"] == {"status": "accepted"}, before
    env = {**stack.env, "SYNTH_CORPUS_DIR": str(broken_corpus(tmp_path / "cards"))}
    assert compose(env, "down").returncode == 0  # the volume stays
    up = compose(env, "up", "-d", "--wait", "api")
    assert up.returncode == 0, f"{up.stderr}\n{stack.logs()}"

    ingest_log = compose(env, "logs", "--no-color", "ingest").stdout
    assert "ERROR ingest: corpus is invalid (2 problem(s))" in ingest_log, ingest_log
    assert "card-012.md: title: Field required" in ingest_log
    assert "card-012.md: tittle: Extra inputs are not permitted" in ingest_log
    assert "keeps serving" in ingest_log and "ingest-clean" in ingest_log
    exited = compose(env, "ps", "-a", "--format", "{{.Service}} {{.State}} {{.ExitCode}}")
    assert "ingest exited 0" in exited.stdout, exited.stdout

    ready = stack.readyz()
    assert ready.status_code == 200, ready.text
    body = ready.json()
    assert body["collection"] == before["collection"]
    assert body["corpus"]["status"] == "refused", body
    assert body["corpus"]["problem_count"] == 2
    assert "ingest-clean" in body["corpus"]["rebuild"]
    with stack.client() as c:
        res = c.post("/api/ask", json={"question": "Posso tomar dipirona com febre?"})
    assert res.status_code == 200 and res.json()["citations"], res.text

    # The explicit rebuild stays a failure.
    clean = compose(env, "--profile", "maintenance", "run", "--rm", "-v",
                    f"{env['SYNTH_CORPUS_DIR']}:/corpus:ro", "-e", "CORPUS_DIR=/corpus",
                    "ingest-clean")  # fmt: skip
    assert clean.returncode == 2, f"{clean.stdout}\n{clean.stderr}"
    assert "card-012.md: title: Field required" in clean.stderr
    assert stack.readyz().json()["collection"] == before["collection"]


def test_without_an_index_the_api_stays_down(empty_project: dict[str, str], tmp_path: Path) -> None:
    env = {**empty_project, "SYNTH_CORPUS_DIR": str(broken_corpus(tmp_path / "cards"))}
    up = compose(env, "up", "-d", "--wait", "api")
    assert up.returncode != 0, up.stdout
    assert "ingest" in up.stderr and "didn't complete successfully" in up.stderr, up.stderr
    states = compose(env, "ps", "-a", "--format", "{{.Service}} {{.State}} {{.ExitCode}}").stdout
    assert "ingest exited 2" in states, states
    assert "api running" not in states, states
    logs = compose(env, "logs", "--no-color", "ingest").stdout
    assert "card-012.md: title: Field required" in logs, logs
