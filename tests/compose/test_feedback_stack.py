"""Patient feedback and the gaps report on the real stack (compose.yaml, the feedback-data
volume, SQLite in WAL mode, two gunicorn workers): a rating survives `down` + `up`, refused
questions come back grouped from GET /api/admin/gaps, and only ADMIN_API_KEY opens it.
The stack runs with both API_KEY and ADMIN_API_KEY set, so the public key is shown not
to open /api/admin. Table of results: docs/reliability.md."""

from __future__ import annotations

import json
import re
import secrets
import time
from typing import Any

import pytest

from app.core.text import fold
from tests.compose.conftest import Stack

pytestmark = [pytest.mark.compose, pytest.mark.slow]

API_KEY = f"public-{secrets.token_hex(12)}"
ADMIN_KEY = f"admin-{secrets.token_hex(12)}"
PUBLIC = {"x-api-key": API_KEY}
ADMIN = {**PUBLIC, "x-admin-key": ADMIN_KEY}
FEEDBACK_DB = "/var/lib/cartoes/feedback/feedback.db"
CPF = "123.456.789-09"  # valid check digits: Presidio's recognizer must catch it
RATED = f"Meu CPF é {CPF}, devo tomar a levotiroxina em jejum?"
AUSTRALIA = "qual a capital da Austrália?"
COPA = ["quem ganhou a copa de 2002?", "quem foi campeão da copa do mundo de 2002?"]
IPV4 = re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}\b")


@pytest.fixture(scope="module")
def stack_settings() -> dict[str, str]:
    return {"API_KEY": API_KEY, "ADMIN_API_KEY": ADMIN_KEY}


def ask(stack: Stack, question: str) -> dict[str, Any]:
    with stack.client(headers=PUBLIC) as c:
        res = c.post("/api/ask", json={"question": question})
    assert res.status_code == 200, res.text
    body: dict[str, Any] = res.json()
    assert re.fullmatch(r"[0-9a-f]{32}", body["answer_id"]), body
    return body


def gaps(stack: Stack) -> dict[str, Any]:
    with stack.client(timeout=120, headers=ADMIN) as c:
        res = c.get("/api/admin/gaps")
    assert res.status_code == 200, res.text
    report: dict[str, Any] = res.json()
    return report


def cluster_with(report: dict[str, Any], words: str) -> dict[str, Any] | None:
    """The group listing a wording that contains `words` (accents and case aside)."""
    for cluster in report["clusters"]:
        if any(words in fold(q["question"]) for q in cluster["questions"]):
            return cluster
    return None


def wait_for_gaps(stack: Stack, done: Any, what: str, timeout: float = 60) -> dict[str, Any]:  # noqa: ANN401
    """Polls the report until `done(report)`: answers are written by a background thread
    per worker, a few milliseconds to seconds after the response."""
    deadline = time.monotonic() + timeout
    while True:
        report = gaps(stack)
        if done(report) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert done(report), f"{what} not in the gaps report after {timeout} s: {report}"
    return report


def sqlite_dump(stack: Stack) -> list[dict[str, Any]]:
    """Every row of the feedback database, read inside the api container (the volume)."""
    code = (
        "import json, sqlite3\n"
        f"db = sqlite3.connect('file:{FEEDBACK_DB}?mode=ro', uri=True)\n"
        "db.row_factory = sqlite3.Row\n"
        "rows = [dict(r, _table=t) for t in ('answers', 'feedback')\n"
        "        for r in db.execute(f'select * from {t}')]\n"
        "print(json.dumps(rows, default=str))\n"
    )
    out = stack.dc("exec", "-T", "api", "python", "-c", code, timeout=60).stdout
    rows: list[dict[str, Any]] = json.loads(out)
    return rows


def test_a_rating_survives_down_and_up(stack: Stack) -> None:
    answer = ask(stack, RATED)
    assert answer["refused"] is False and answer["citations"], answer
    with stack.client(headers=PUBLIC) as c:
        res = c.post(
            "/api/feedback",
            json={"answer_id": answer["answer_id"], "helpful": False, "reason": "nao_respondeu"},
        )
    assert res.status_code == 201, res.text
    assert res.json() == {"stored": True}

    def rated(report: dict[str, Any]) -> bool:
        group = cluster_with(report, "levotiroxina em jejum")
        return group is not None and group["reasons"].get("nao_respondeu", 0) >= 1

    before = wait_for_gaps(stack, rated, "the rated question")
    group_before = cluster_with(before, "levotiroxina em jejum")

    stack.dc("down", timeout=180)  # containers and network go; the volumes stay
    stack.dc("up", "-d", "--wait", "api", timeout=600)

    after = gaps(stack)
    group = cluster_with(after, "levotiroxina em jejum")
    assert group is not None, after
    assert group == group_before, (group_before, group)
    assert group["not_helpful"] >= 1 and group["reasons"]["nao_respondeu"] >= 1, group

    rows = sqlite_dump(stack)
    (record,) = [
        r for r in rows if r["_table"] == "answers" and r["answer_id"] == answer["answer_id"]
    ]
    (rating,) = [
        r for r in rows if r["_table"] == "feedback" and r["answer_id"] == answer["answer_id"]
    ]
    assert (rating["helpful"], rating["reason"]) == (0, "nao_respondeu"), rating
    assert "levotiroxina em jejum" in record["question"], record
    assert json.loads(record["cited"]) == [c["id"] for c in answer["citations"]], record
    assert record["build_id"] == stack.readyz().json()["collection"], record
    # Stored after personal-data stripping, and never with an address.
    everything = json.dumps(rows, default=str)
    assert CPF not in everything and "12345678909" not in everything, record
    assert IPV4.findall(everything) == [], IPV4.findall(everything)
    print(f"\nrating kept across down + up: {rating}; stored question {record['question']!r}")


def test_gaps_group_the_refused_questions(stack: Stack) -> None:
    asked = [AUSTRALIA, AUSTRALIA, *COPA]
    answers = [ask(stack, q) for q in asked]
    assert all(a["refused"] for a in answers), [
        (q, a["decision"]) for q, a in zip(asked, answers, strict=True)
    ]

    def grouped(report: dict[str, Any]) -> bool:
        copa = cluster_with(report, "copa")
        australia = cluster_with(report, "australia")
        return bool(copa and australia and copa["count"] >= 2 and australia["count"] >= 2)

    report = wait_for_gaps(stack, grouped, "the refused questions")
    clusters = report["clusters"]
    assert clusters == sorted(clusters, key=lambda c: -c["count"]), clusters
    copa, australia = cluster_with(report, "copa"), cluster_with(report, "australia")
    assert copa is not None and australia is not None
    assert copa is not australia, clusters
    # Both wordings of the football question in one group, each counted once.
    assert copa["count"] == 2 and copa["refused"] == 2, copa
    assert {fold(q["question"]) for q in copa["questions"]} == {fold(q) for q in COPA}, copa
    assert fold(copa["example"]) in {fold(q) for q in COPA}
    # The same question asked twice: one wording, counted twice, and it is the example.
    assert australia["count"] == 2 and australia["refused"] == 2, australia
    assert [q["count"] for q in australia["questions"]] == [2], australia
    assert fold(australia["example"]) == fold(AUSTRALIA)
    assert report["questions"] >= 4 and report["days"] >= 1, report
    print(
        f"\n{len(clusters)} groups: "
        + "; ".join(f"{c['count']} x {c['example']!r}" for c in clusters)
    )


def test_admin_gaps_needs_the_admin_key(stack: Stack) -> None:
    attempts = {
        "no key at all": {},
        "the public API key alone": PUBLIC,
        "the public key as the admin key": {**PUBLIC, "x-admin-key": API_KEY},
        "a wrong admin key": {**PUBLIC, "x-admin-key": ADMIN_KEY + "x"},
    }
    with stack.client() as c:
        for what, headers in attempts.items():
            res = c.get("/api/admin/gaps", headers=headers)
            assert res.status_code == 401, (what, res.text)
            assert res.json()["error"]["code"] == "unauthorized", (what, res.text)
            assert "clusters" not in res.text, what
        ok = c.get("/api/admin/gaps", headers=ADMIN)
    assert ok.status_code == 200 and "clusters" in ok.json(), ok.text
