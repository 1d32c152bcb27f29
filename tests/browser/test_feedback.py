""" "Ajudou" / "Não ajudou" under an answer, against the real service: the rating (and the
optional reason) reaches POST /api/feedback with the answer's answer_id, the page confirms
it, and the service's own feedback database holds it. Failures are explained in plain
Portuguese: a real 404 for an answer the service does not know, and a 503 and a network
failure made by intercepting the request (the only replaced responses here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, Request, Route, expect

from tests.browser.helpers import (
    LEVO,
    api_requests,
    ask_real,
    page_fits,
    reload_ready,
    stored_rating,
    wait_done,
)

pytestmark = pytest.mark.browser

REASONS = [
    "Não respondeu minha pergunta",
    "Difícil de entender",
    "Informação errada",
    "Outro motivo",
]


def feedback_box(page: Page) -> Locator:
    return page.get_by_role("group", name="Esta resposta ajudou?")


def check_touch_size(button: Locator) -> None:
    size = button.bounding_box()
    assert size and size["height"] >= 44 and size["width"] >= 44, size


def feedback_bodies(requests: list[Request]) -> list[Any]:
    return [r.post_data_json for r in requests if r.url.endswith("/api/feedback")]


def test_feedback_is_sent_and_confirmed(screen: Page, feedback_db: Path) -> None:
    page = screen
    requests = api_requests(page)
    answer_id = ask_real(page, LEVO, expect_state="answered")["answer_id"]
    box = feedback_box(page)
    yes = box.get_by_role("button", name="Ajudou", exact=True)
    no = box.get_by_role("button", name="Não ajudou", exact=True)
    status = box.get_by_role("status")
    reasons = box.get_by_role("group", name="Se quiser, diga o que faltou:")
    for button in (yes, no):
        expect(button).to_have_attribute("aria-pressed", "false")
        check_touch_size(button)
    expect(reasons).to_be_hidden()
    # After the answer and its sources, before the support details.
    order = page.evaluate(
        "['#answer-body', '.feedback', '#answer-extra details']"
        ".map((s) => document.querySelector(s).getBoundingClientRect().top)"
    )
    assert order == sorted(order), order

    yes.click()
    expect(status).to_have_text("Obrigado pela avaliação.")
    expect(yes).to_have_attribute("aria-pressed", "true")
    expect(no).to_have_attribute("aria-pressed", "false")
    assert feedback_bodies(requests) == [{"answer_id": answer_id, "helpful": True}]
    stored_rating(feedback_db, answer_id, (True, None))

    # Keyboard only: change to "Não ajudou", then give a reason.
    page.keyboard.press("Tab")
    expect(no).to_be_focused()
    page.keyboard.press("Space")
    expect(no).to_have_attribute("aria-pressed", "true")
    expect(yes).to_have_attribute("aria-pressed", "false")
    expect(status).to_have_text("Obrigado pela avaliação.")
    stored_rating(feedback_db, answer_id, (False, None))
    expect(reasons.get_by_role("button")).to_have_text(REASONS)
    for button in reasons.get_by_role("button").all():
        expect(button).to_have_attribute("aria-pressed", "false")
        check_touch_size(button)
    for _ in range(3):
        page.keyboard.press("Tab")
    wrong = reasons.get_by_role("button", name="Informação errada")
    expect(wrong).to_be_focused()
    page.keyboard.press("Enter")
    expect(wrong).to_have_attribute("aria-pressed", "true")
    expect(box).to_have_attribute("data-state", "stored")
    expect(status).to_have_text("Obrigado pela avaliação.")
    stored_rating(feedback_db, answer_id, (False, "informacao_errada"))
    assert feedback_bodies(requests) == [
        {"answer_id": answer_id, "helpful": True},
        {"answer_id": answer_id, "helpful": False},
        {"answer_id": answer_id, "helpful": False, "reason": "informacao_errada"},
    ]
    assert page_fits(page)

    # Shown again (a reload): the rating is remembered and nothing is sent again.
    reload_ready(page)
    wait_done(page, "answered")
    expect(no).to_have_attribute("aria-pressed", "true")
    expect(wrong).to_have_attribute("aria-pressed", "true")
    expect(status).to_have_text("Obrigado pela avaliação.")
    no.click()
    wrong.click()
    expect(box).to_have_attribute("data-state", "stored")
    assert len(feedback_bodies(requests)) == 3


def fail_503(route: Route) -> None:
    route.fulfill(
        status=503,
        json={
            "error": {
                "code": "feedback_unavailable",
                "message": "the feedback store cannot write right now; the answer itself is "
                "unaffected",
            }
        },
    )


def fail_network(route: Route) -> None:
    route.abort("internetdisconnected")


# (how the request fails, the choice that is sent, what the patient reads, technical text)
FAILURES = [
    (fail_503, "Não ajudou", "não conseguiu guardar a avaliação", "feedback_unavailable"),
    (fail_network, "Ajudou", "Verifique sua conexão com a internet", "Falha de rede"),
]


def test_feedback_failure_is_explained_and_can_be_sent_again(
    screen: Page, feedback_db: Path
) -> None:
    page = screen
    answer_id = ask_real(page, LEVO, expect_state="answered")["answer_id"]
    box = feedback_box(page)
    status = box.get_by_role("status")
    for fail, choice, plain, technical in FAILURES:
        page.route("**/api/feedback", fail)
        button = box.get_by_role("button", name=choice, exact=True)
        button.click()
        alert = box.get_by_role("alert")
        expect(alert).to_contain_text("A avaliação não foi enviada")
        expect(alert.locator(".notice__text")).to_contain_text(plain)
        assert technical not in alert.locator(".notice__text").inner_text()
        details = alert.locator("details")
        expect(details).not_to_have_attribute("open", "")
        details.get_by_text("Detalhes técnicos").click()
        expect(details).to_contain_text(technical)
        # Nothing was stored, and the page does not pretend it was.
        expect(button).to_have_attribute("aria-pressed", "false")
        expect(status).to_have_text("")
        expect(page.get_by_role("button", name="Perguntar")).to_be_enabled()
        assert page_fits(page)

        page.unroute("**/api/feedback")
        alert.get_by_role("button", name="Enviar de novo").click()
        expect(button).to_be_focused()
        expect(status).to_have_text("Obrigado pela avaliação.")
        expect(button).to_have_attribute("aria-pressed", "true")
        expect(box.get_by_role("alert")).to_have_count(0)
        stored_rating(feedback_db, answer_id, (choice == "Ajudou", None))


def test_feedback_for_an_answer_the_service_does_not_know(page: Page) -> None:
    ask_real(page, LEVO, expect_state="answered")
    # An answer kept in the tab longer than the service keeps answers: its id is unknown
    # there (a time-ordered id from 1970, far past any retention).
    unknown = "0" * 32
    page.evaluate(
        """(id) => {
          const items = JSON.parse(sessionStorage.getItem('cartoes.conversa.v1'));
          items[0].answerId = id;
          items[0].result.answer_id = id;
          sessionStorage.setItem('cartoes.conversa.v1', JSON.stringify(items));
        }""",
        unknown,
    )
    reload_ready(page)
    wait_done(page, "answered")
    box = feedback_box(page)
    with page.expect_response("**/api/feedback") as info:
        box.get_by_role("button", name="Ajudou", exact=True).click()
    assert info.value.status == 404, info.value.status
    alert = box.get_by_role("alert")
    expect(alert).to_contain_text("A avaliação não foi enviada")
    expect(alert.locator(".notice__text")).to_contain_text(
        "O serviço não encontrou esta resposta para registrar a avaliação"
    )
    expect(alert.get_by_role("button")).to_have_count(0)  # sending again cannot help
    details = alert.locator("details")
    details.get_by_text("Detalhes técnicos").click()
    expect(details).to_contain_text("unknown_answer")
    expect(details).to_contain_text("Resposta HTTP (404)")
    expect(box.get_by_role("button", name="Ajudou", exact=True)).to_have_attribute(
        "aria-pressed", "false"
    )
