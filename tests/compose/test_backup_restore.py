"""Backups that restore: ingest, answer a fixed set of questions, back up with
deploy/backup.sh, destroy the volumes, restore with deploy/restore.sh, start the API again
without running ingest, and get the same answers and citations. The feedback volume (and
an SQLite database in it) comes back too.
Table of results: docs/reliability.md."""

from __future__ import annotations

import subprocess
import time
import uuid
from pathlib import Path

import pytest

from tests.compose.conftest import ROOT, Stack

pytestmark = [pytest.mark.compose, pytest.mark.slow]

QUESTIONS = [
    "devo tomar a levotiroxina com o estômago vazio?",
    "Posso tomar dipirona com febre?",
    "Quanto paracetamol posso tomar por dia?",
    "como guardar insulina?",
    "qual a capital da Austrália?",  # refused: the refusal must be the same too
]
FEEDBACK = "/var/lib/cartoes/feedback"


def snapshot(stack: Stack) -> list[tuple[str, list[str], list[tuple[str, float]], bool]]:
    out = []
    with stack.client() as c:
        for q in QUESTIONS:
            res = c.post("/api/ask", json={"question": q})
            assert res.status_code == 200, res.text
            body = res.json()
            out.append(
                (
                    body["answer"],
                    [cit["id"] for cit in body["citations"]],
                    [(hit["id"], round(hit["score"], 4)) for hit in body["retrieval"]],
                    body["refused"],
                )
            )
    return out


def script(stack: Stack, name: str, *args: str) -> subprocess.CompletedProcess[str]:
    res = subprocess.run(
        ["bash", str(ROOT / "deploy" / name), *args],
        cwd=ROOT, env=stack.env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert res.returncode == 0, f"{name} failed:\n{res.stdout}\n{res.stderr}\n{stack.logs()}"
    return res


def in_api(stack: Stack, code: str) -> str:
    return stack.dc("exec", "-T", "api", "python", "-c", code, timeout=60).stdout.strip()


def ratings(stack: Stack) -> str:
    """The feedback table, read inside the api container."""
    return in_api(
        stack,
        f"import sqlite3; print(sqlite3.connect('file:{FEEDBACK}/feedback.db?mode=ro', "
        "uri=True).execute('select answer_id, helpful from feedback').fetchall())",
    )


def test_backup_destroy_restore_answers_the_same(stack: Stack, tmp_path: Path) -> None:
    before = snapshot(stack)
    assert sum(1 for *_, refused in before if not refused) >= 4, before
    ready_before = stack.readyz().json()
    # A real rating (POST /api/feedback, written by the API to SQLite in the
    # feedback-data volume) and a marker file beside it.
    with stack.client() as c:
        answer_id = c.post("/api/ask", json={"question": QUESTIONS[0]}).json()["answer_id"]
        rated = c.post("/api/feedback", json={"answer_id": answer_id, "helpful": True})
    assert rated.status_code == 201, rated.text
    marker = f"marker-{uuid.uuid4().hex}"
    in_api(stack, f"import pathlib; pathlib.Path('{FEEDBACK}/marker.txt').write_text('{marker}')")
    assert ratings(stack) == f"[('{answer_id}', 1)]"

    start = time.monotonic()
    backup = script(stack, "backup.sh", str(tmp_path / "backups"))
    backup_s = time.monotonic() - start
    sets = sorted((tmp_path / "backups").glob("cartoes-*"))
    assert len(sets) == 1 and {p.name for p in sets[0].iterdir()} == {
        "chroma.tar.gz",
        "feedback.tar.gz",
    }, backup.stdout

    # Lose everything: containers, network and both volumes.
    stack.dc("down", "--volumes", timeout=180)
    label = f"label=com.docker.compose.project={stack.project}"
    volumes = subprocess.run(
        ["docker", "volume", "ls", "-q", "--filter", label],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert volumes == [], volumes

    start = time.monotonic()
    restore = script(stack, "restore.sh", str(sets[0]))
    stack.dc("up", "-d", "--wait", "--no-deps", "api", timeout=600)  # no ingest
    restore_s = time.monotonic() - start

    assert stack.dc("ps", "-a", "-q", "ingest").stdout.strip() == "", "ingest ran"
    ready_after = stack.readyz().json()
    for key in ("collection", "built_at", "cards", "chunks"):
        assert ready_after[key] == ready_before[key], (ready_before, ready_after)
    assert snapshot(stack) == before
    assert in_api(stack, f"print(open('{FEEDBACK}/marker.txt').read())") == marker
    assert ratings(stack) == f"[('{answer_id}', 1)]"
    print(
        f"\nbackup {backup_s:.1f} s, restore + api up {restore_s:.1f} s; "
        f"{len(QUESTIONS)} answers identical; {backup.stdout.strip().splitlines()[-1]}\n"
        f"{restore.stdout.strip()}"
    )
