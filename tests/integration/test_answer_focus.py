"""Within the card that answers, the sentences quoted are the ones about what was asked, not
the ones that merely repeat the medicine's name. Real service, real model, real HTTP; these
questions are in no evaluation set."""

from __future__ import annotations

import httpx
import pytest

from app.agent.messages import UNCOVERED_MARK
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
        # Before: the anti-inflammatory, pregnancy and "what it is for" lines, all naming
        # losartana; the line that says when (a question about when) was not quoted.
        ("posso tomar a losartana à noite?", "card-009", "mesmo horário"),
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
    # the antibiotics card (its own missed-dose line) or the missed-dose card, nothing else
    assert {c["id"] for c in body["citations"]} <= {"card-026", "card-027"}, body
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


def test_a_covered_part_is_answered_and_the_other_named(service: Service) -> None:
    """Before (issue 24): the whole message was refused for its uncovered half, "Os cartões
    não têm informação sobre queda de cabelo", although a card says how to take metformina."""
    question = "a metformina tem que ser com comida? e é verdade que ela dá queda de cabelo?"
    body = httpx.post(f"{service.url}/api/ask", json={"question": question}, timeout=60).json()
    assert body["refused"] is False, body
    assert [c["id"] for c in body["citations"]] == ["card-003"], body
    answer, _, named = body["answer"].partition("\n\n")
    assert "refeições" in answer, body["answer"]
    assert "os cartões não respondem" in named and "queda de cabelo" in named, body["answer"]


def test_a_message_no_part_of_which_is_covered_is_still_refused(service: Service) -> None:
    question = "a losartana causa queda de cabelo? e ela dá espinha?"
    body = httpx.post(f"{service.url}/api/ask", json={"question": question}, timeout=60).json()
    assert body["refused"] is True and body["citations"] == [], body
    assert "queda de cabelo" in body["answer"], body["answer"]


def test_a_part_without_a_subject_of_its_own_is_not_answered_from_another_card(
    service: Service,
) -> None:
    """Before: "quantas vezes por dia?" was judged on its own and answered from the
    levotiroxina card, in a message about soro fisiológico, which no card covers."""
    question = (
        "Como lavar o nariz do meu bebê de 6 meses com soro fisiológico? Quantas vezes por dia?"
    )
    body = httpx.post(f"{service.url}/api/ask", json={"question": question}, timeout=60).json()
    assert body["refused"] is True and body["citations"] == [], body
    assert "soro fisiológico" in body["answer"], body["answer"]


@pytest.mark.parametrize(
    ("question", "card", "answered", "named"),
    [
        # Before (issue 24): the covered part was answered and "e ela engorda?" dropped
        # without a word, although the whole message was judged covered.
        ("a sinvastatina eu tomo de noite? e ela engorda?", "card-015", "à noite", "engorda"),
        (
            "o omeprazol é antes do café? e ele dá queda de cabelo?",
            "card-019",
            "em jejum",
            "cabelo",
        ),
    ],
)
def test_a_part_no_card_answers_is_named_when_the_rest_is_answered(
    service: Service, question: str, card: str, answered: str, named: str
) -> None:
    body = httpx.post(f"{service.url}/api/ask", json={"question": question}, timeout=60).json()
    assert body["refused"] is False and [c["id"] for c in body["citations"]] == [card], body
    answer, _, said = body["answer"].partition("\n\n")
    assert answered in answer, body["answer"]
    assert UNCOVERED_MARK in said and named in said, body["answer"]
    assert named not in answer, body["answer"]


@pytest.mark.parametrize(
    ("question", "card"),
    [
        ("posso tomar a losartana depois do almoço? ou tanto faz o horário?", "card-009"),
        ("quantas medidas de pressão eu faço de cada vez? uma só basta?", "card-013"),
    ],
)
def test_a_follow_on_piece_of_a_covered_question_is_not_named(
    service: Service, question: str, card: str
) -> None:
    """ "Tanto faz?" after a question is part of it, not a question the cards leave open."""
    body = httpx.post(f"{service.url}/api/ask", json={"question": question}, timeout=60).json()
    assert [c["id"] for c in body["citations"]][:1] == [card], body
    assert UNCOVERED_MARK not in body["answer"], body["answer"]
