"""Patient feedback and the gaps report over real HTTP: gunicorn (2 workers), the real
model, a real Chroma index, a real SQLite feedback store."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from evaluation.service import Service
from tests.polling import wait_until
from tests.unit.feedback.helpers import feedback_service, rows, shared_index

pytestmark = [pytest.mark.model, pytest.mark.slow]

ADMIN = "admin-key-for-tests-0123"
PUBLIC = "public-key-for-tests-0123"
PII_QUESTION = "Meu CPF é 123.456.789-09, devo tomar a levotiroxina em jejum?"
REFUSED = [  # refused by the gate today (no card reaches MIN_SIMILARITY)
    "quem ganhou a copa do mundo de 2002?",
    "quem foi campeao da copa de 2002?",
    "quem ganhou a copa do mundo de 2002?",
    "me passa uma receita de bolo de cenoura",
    "como fazer bolo de cenoura com cobertura de chocolate?",
    "como formatar um pendrive no windows 11?",
]


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('feedback-api') / 'feedback.db'}"


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, url: str) -> Iterator[Service]:
    service = feedback_service(
        shared_index(tmp_path_factory), url, ADMIN_API_KEY=ADMIN, WEB_CONCURRENCY="2"
    )
    service.start()
    yield service
    service.stop()


def ask(svc: Service, question: str, **headers: str) -> dict[str, Any]:
    r = httpx.post(f"{svc.url}/api/ask", json={"question": question}, headers=headers, timeout=60)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    assert re.fullmatch(r"[0-9a-f]{32}", body["answer_id"])
    return body


def rate(svc: Service, body: dict[str, Any], **headers: str) -> httpx.Response:
    return httpx.post(f"{svc.url}/api/feedback", json=body, headers=headers, timeout=60)


def stored_answer(url: str, answer_id: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = []

    def written() -> bool:
        found[:] = [r for r in rows(url, "answers") if r["answer_id"] == answer_id]
        return bool(found)

    wait_until(written, 30, what=f"answer {answer_id} written by the background writer")
    return found[0]


def test_a_rating_is_stored_with_the_stripped_question_cards_scores_build_and_no_address(
    svc: Service, url: str
) -> None:
    answer = ask(svc, PII_QUESTION)
    r = rate(
        svc, {"answer_id": answer["answer_id"], "helpful": False, "reason": "dificil_de_entender"}
    )
    assert r.status_code == 201 and r.json() == {"stored": True}

    row = stored_answer(url, answer["answer_id"])
    assert "123.456.789-09" not in row["question"] and "CPF" not in row["question"]
    assert "levotiroxina em jejum" in row["question"]
    assert row["outcome"] == "answered"
    assert json.loads(row["cited"]) == [c["id"] for c in answer["citations"]]
    assert json.loads(row["retrieval"]) == answer["retrieval"]
    build = httpx.get(f"{svc.url}/readyz", timeout=30).json()["collection"]
    assert row["build_id"] == build
    (rating,) = [f for f in rows(url, "feedback") if f["answer_id"] == answer["answer_id"]]
    assert (rating["helpful"], rating["reason"]) == (0, "dificil_de_entender")

    everything = json.dumps([rows(url, t) for t in ("answers", "feedback")], default=str)
    assert "127.0.0.1" not in everything and "123.456.789" not in everything


def test_every_answer_gets_its_own_id_also_when_streamed(svc: Service, url: str) -> None:
    first, second = ask(svc, "como guardar a insulina?"), ask(svc, "como guardar a insulina?")
    assert first["answer_id"] != second["answer_id"]
    r = httpx.post(
        f"{svc.url}/api/ask/stream", json={"question": "como guardar a insulina?"}, timeout=60
    )
    final = json.loads(r.text.strip().split("\n\n")[-1].split("data: ", 1)[1])
    assert re.fullmatch(r"[0-9a-f]{32}", final["answer_id"])
    assert stored_answer(url, final["answer_id"])["outcome"] == "answered"
    assert rate(svc, {"answer_id": final["answer_id"], "helpful": True}).status_code == 201


def test_a_rating_for_an_unknown_answer_is_404(svc: Service) -> None:
    r = rate(svc, {"answer_id": "0123456789abcdef0123456789abcdef", "helpful": True})
    assert r.status_code == 404
    assert r.json()["error"]["code"] == "unknown_answer"
    assert "older than 90 days" in r.json()["error"]["message"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"helpful": True}, "answer_id: Field required"),
        (
            {"answer_id": "abc", "helpful": True},
            "answer_id: must be the answer_id returned by /api/ask (32 lowercase hex "
            "characters), got 3 character(s)",
        ),
        (
            {"answer_id": "A" * 32, "helpful": True},
            "answer_id: must be the answer_id returned by /api/ask",
        ),
        ({"answer_id": "a" * 32}, "helpful: Field required"),
        ({"answer_id": "a" * 32, "helpful": "yes"}, "helpful: Input should be a valid boolean"),
        (
            {"answer_id": "a" * 32, "helpful": False, "reason": "ruim"},
            "reason: Input should be 'nao_respondeu', 'dificil_de_entender', "
            "'informacao_errada' or 'outro'",
        ),
        (
            {"answer_id": "a" * 32, "helpful": False, "comment": "meu nome é Ana"},
            "comment: Extra inputs are not permitted",
        ),
    ],
)
def test_invalid_ratings_get_422_naming_the_field(
    svc: Service, body: dict[str, Any], message: str
) -> None:
    r = rate(svc, body)
    assert r.status_code == 422
    assert r.json()["error"]["code"] == "invalid_request"
    assert message in r.json()["error"]["message"]


def test_admin_gaps_needs_the_admin_key(svc: Service) -> None:
    none = httpx.get(f"{svc.url}/api/admin/gaps", timeout=60)
    wrong = httpx.get(f"{svc.url}/api/admin/gaps", headers={"x-admin-key": ADMIN + "x"}, timeout=60)
    for r in (none, wrong):
        assert r.status_code == 401
        assert r.json()["error"] == {
            "code": "unauthorized",
            "message": "missing or wrong X-Admin-Key header",
        }
    ok = httpx.get(f"{svc.url}/api/admin/gaps", headers={"x-admin-key": ADMIN}, timeout=60)
    assert ok.status_code == 200 and ok.json()["days"] == 90


def test_gaps_groups_refused_and_unhelpful_questions_most_frequent_first(svc: Service) -> None:
    answered = [ask(svc, q) for q in REFUSED]
    assert all(a["refused"] for a in answered)
    unhelpful = ask(svc, "posso tomar ozempic para emagrecer?")
    assert (
        rate(
            svc, {"answer_id": unhelpful["answer_id"], "helpful": False, "reason": "nao_respondeu"}
        ).status_code
        == 201
    )
    for a in answered:  # written by now: the ratings below would 404 otherwise
        assert rate(svc, {"answer_id": a["answer_id"], "helpful": False}).status_code == 201

    report = httpx.get(
        f"{svc.url}/api/admin/gaps", headers={"x-admin-key": ADMIN}, timeout=120
    ).json()
    clusters = report["clusters"]
    assert clusters == sorted(clusters, key=lambda c: -c["count"])
    copa, bolo, pendrive = (
        next(c for c in clusters if word in c["example"].lower())
        for word in ("copa", "bolo", "pendrive")
    )
    assert clusters[0] == copa and copa["count"] == 3 and copa["refused"] == 3
    assert {q["question"] for q in copa["questions"]} == set(REFUSED[:2])
    assert copa["example"] == REFUSED[0]  # asked twice
    assert bolo["count"] == 2 and pendrive["count"] == 1
    (ozempic,) = [c for c in clusters if any("ozempic" in q["question"] for q in c["questions"])]
    assert ozempic["not_helpful"] >= 1 and ozempic["reasons"].get("nao_respondeu") == 1
    assert "levotiroxina" not in json.dumps(copa) + json.dumps(bolo)


def test_metrics_count_records_and_no_failures(svc: Service) -> None:
    ask(svc, "como guardar a insulina?")

    def recorded() -> bool:
        text = httpx.get(f"{svc.url}/metrics", timeout=30).text
        return "rag_feedback_answers_recorded_total" in text

    wait_until(recorded, 30, what="rag_feedback_answers_recorded_total in /metrics")
    text = httpx.get(f"{svc.url}/metrics", timeout=30).text
    for what in ("answer", "feedback", "schema", "purge"):
        assert f'rag_feedback_write_failures_total{{what="{what}"}} 0.0' in text


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """API_KEY and ADMIN_API_KEY both set."""
    db = tmp_path_factory.mktemp("feedback-guarded") / "feedback.db"
    service = feedback_service(
        shared_index(tmp_path_factory), f"sqlite:///{db}", API_KEY=PUBLIC, ADMIN_API_KEY=ADMIN
    )
    service.start()
    yield service
    service.stop()


def test_the_public_api_key_alone_never_opens_admin(guarded: Service) -> None:
    gaps = f"{guarded.url}/api/admin/gaps"
    public_only = httpx.get(gaps, headers={"x-api-key": PUBLIC}, timeout=60)
    assert (
        public_only.status_code == 401 and "X-Admin-Key" in public_only.json()["error"]["message"]
    )
    admin_only = httpx.get(gaps, headers={"x-admin-key": ADMIN}, timeout=60)
    assert admin_only.status_code == 401 and "X-API-Key" in admin_only.json()["error"]["message"]
    public_as_admin = httpx.get(
        gaps, headers={"x-api-key": PUBLIC, "x-admin-key": PUBLIC}, timeout=60
    )
    assert public_as_admin.status_code == 401
    both = httpx.get(gaps, headers={"x-api-key": PUBLIC, "x-admin-key": ADMIN}, timeout=60)
    assert both.status_code == 200 and both.json()["clusters"] == []


def test_feedback_needs_the_public_key_when_it_is_set(guarded: Service) -> None:
    answer = ask(guarded, "como guardar a insulina?", **{"x-api-key": PUBLIC})
    body = {"answer_id": answer["answer_id"], "helpful": True}
    assert rate(guarded, body).status_code == 401
    assert rate(guarded, body, **{"x-api-key": PUBLIC}).status_code == 201


def test_admin_is_404_when_admin_api_key_is_unset(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    service = feedback_service(shared_index(tmp_path_factory), f"sqlite:///{tmp_path / 'f.db'}")
    service.start()
    try:
        for headers in ({}, {"x-admin-key": ADMIN}):
            r = httpx.get(f"{service.url}/api/admin/gaps", headers=headers, timeout=60)
            assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    finally:
        service.stop()
