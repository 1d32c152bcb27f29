"""Within the card that answers, the sentences quoted are the ones about what was asked, not
the ones that merely repeat the medicine's name. Real service, real model, real HTTP; these
questions are in no evaluation set."""

from __future__ import annotations

import httpx
import pytest

from tests.integration.conftest import Service

pytestmark = [pytest.mark.model, pytest.mark.slow]


@pytest.mark.parametrize(
    ("question", "card", "needed"),
    [
        # Before: only "O omeprazol deve ser tomado em jejum..." (0.50 against 0.27).
        ("uso omeprazol há 5 anos todo dia, faz mal?", "card-019", "uso prolongado"),
        # Before: the freezing line alone.
        (
            "a insulina que ta aberta pode ficar fora da geladeira quanto tempo?",
            "card-006",
            "4 semanas",
        ),
        # Before: the evening dose, liver tests and "tome de forma contínua", no muscle line.
        ("remedio de colesterol da dor nas pernas?", "card-015", "músculos"),
    ],
)
def test_the_line_that_answers_is_quoted(
    service: Service, question: str, card: str, needed: str
) -> None:
    body = httpx.post(f"{service.url}/api/ask", json={"question": question}, timeout=60).json()
    assert [c["id"] for c in body["citations"]][:1] == [card], body
    assert needed in body["answer"], body["answer"]


def test_a_missed_dose_gets_the_answering_cards_guidance(service: Service) -> None:
    """Before: the closest "do not double" line was warfarin's, "não dobre a seguinte;
    anote o esquecimento e informe no dia do exame", quoted for an antibiotic."""
    question = "tomo amoxicilina e esqueci uma dose, tomo duas agora?"
    body = httpx.post(f"{service.url}/api/ask", json={"question": question}, timeout=60).json()
    assert [c["id"] for c in body["citations"]] == ["card-027"], body
    assert "Nunca tome dose dobrada" in body["answer"], body["answer"]
    assert "dia do exame" not in body["answer"], body["answer"]


def test_a_stop_question_keeps_to_the_card_that_answers_it(service: Service) -> None:
    """Before: the answering card's own "não pare de repente" was not taken as guidance, so
    levothyroxine's "Se notar esses sintomas, não reduza nem suspenda o remédio sozinho;
    ... exame de TSH" was added to an omeprazole question."""
    question = "uso omeprazol faz 2 anos, posso parar de vez?"
    body = httpx.post(f"{service.url}/api/ask", json={"question": question}, timeout=60).json()
    assert [c["id"] for c in body["citations"]] == ["card-019"], body
    assert "não pare de repente" in body["answer"], body["answer"]
    assert "TSH" not in body["answer"], body["answer"]


def test_a_follow_up_is_judged_with_the_conversations_topic(service: Service) -> None:
    """Before: "e posso ficar no sol na praia?" after two answered turns about
    hidroclorotiazida was refused (P(covered) 0.25 against a 0.36 bar): alone it says little.
    A follow-up now meets a lower bar; it still names nothing the cards do not cover."""
    history: list[dict[str, object]] = []
    for question in (
        "tomo hidroclorotiazida e acordo de noite pra fazer xixi, é normal?",
        "e no calor, que cuidado devo ter?",
    ):
        body = httpx.post(
            f"{service.url}/api/ask",
            json={"question": question, "history": history},
            timeout=60,
        ).json()
        assert [c["id"] for c in body["citations"]][:1] == ["card-011"], body
        history.append({"question": question, "citations": [c["id"] for c in body["citations"]]})
    body = httpx.post(
        f"{service.url}/api/ask",
        json={"question": "e posso ficar no sol na praia?", "history": history},
        timeout=60,
    ).json()
    assert body["decision"]["outcome"] == "answer", body["decision"]
    assert [c["id"] for c in body["citations"]] == ["card-011"], body
    off_topic = httpx.post(
        f"{service.url}/api/ask",
        json={"question": "e quem ganhou o jogo ontem?", "history": history},
        timeout=60,
    ).json()
    assert off_topic["decision"]["outcome"] == "not_covered", off_topic["decision"]
    assert off_topic["citations"] == [], off_topic
