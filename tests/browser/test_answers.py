"""Answers the real service escalates or does not cover, on the desktop and phone screens:
each emergency kind (medical, poisoning, self-harm) gets its alert with the numbers to
call, and a question about a medicine the cards do not cover says so, cites nothing and
offers the close topics the service suggests."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import (
    CHEST_PAIN,
    NOT_COVERED,
    POISONING,
    SELF_HARM,
    api_requests,
    ask_bodies,
    ask_real,
    is_phone,
    page_fits,
    stored_rating,
    wait_done,
)

pytestmark = pytest.mark.browser


def check_alert_first(page: Page) -> None:
    """The alert comes before the answer; the page is usable at this size."""
    above = page.evaluate(
        "document.querySelector('.alert').compareDocumentPosition("
        "document.getElementById('answer-body')) & Node.DOCUMENT_POSITION_FOLLOWING"
    )
    assert above
    if is_phone(page):
        expect(page.get_by_role("alert")).to_be_in_viewport()
    for link in page.get_by_role("alert").get_by_role("link").all():
        size = link.bounding_box()
        assert size and size["height"] >= 44, size
    expect(page.locator("#status")).to_have_text("Atenção: alerta de emergência na resposta.")
    expect(page.get_by_role("group", name="Esta resposta ajudou?")).to_be_visible()
    assert page_fits(page)


def new_conversation(page: Page) -> None:
    """Each emergency is asked on its own, as its first question."""
    page.get_by_role("button", name="Nova conversa").click()
    expect(page.locator("#answer")).to_be_hidden()


def test_emergencies_are_escalated(screen: Page, artifacts: Path) -> None:
    page = screen
    screen_name = "phone" if is_phone(page) else "desktop"

    # A medical emergency the cards cover: the escalation, then the cited answer.
    medical = ask_real(page, CHEST_PAIN, expect_state="answered")
    assert medical["emergency"] == "medical", medical
    alert = page.get_by_role("alert")
    expect(alert).to_have_count(1)
    expect(alert.locator(".alert__title")).to_have_text("Emergência: procure atendimento agora")
    expect(alert).to_contain_text("SAMU 192")
    expect(alert.get_by_role("link", name="Ligar 192 (SAMU)")).to_have_attribute("href", "tel:192")
    check_alert_first(page)
    body = page.locator("#answer-body")
    expect(body).not_to_contain_text("SAMU 192")  # the escalation is not said twice
    expect(body.locator('.chip[data-card="card-018"]').first).to_have_text(
        "Fonte: Sinais de alerta de infarto e AVC"
    )
    page.screenshot(path=str(artifacts / f"emergency-{screen_name}.png"), full_page=True)

    # A child who swallowed medicine: SAMU and the poison line, both to call at once.
    new_conversation(page)
    poisoning = ask_real(page, POISONING, expect_state=("answered", "refused"))
    assert poisoning["emergency"] == "poisoning", poisoning
    alert = page.get_by_role("alert")
    expect(alert).to_have_count(1)
    expect(alert.locator(".alert__title")).to_have_text("Possível intoxicação: ligue agora")
    expect(alert.locator(".alert__text")).to_contain_text("0800 722 6001")
    line = alert.get_by_role("link", name="Ligar 0800 722 6001 (Disque-Intoxicação, 24 horas)")
    expect(line).to_be_visible()
    expect(line).to_have_attribute("href", "tel:08007226001")
    expect(alert.get_by_role("link", name="Ligar 192 (SAMU)")).to_have_attribute("href", "tel:192")
    check_alert_first(page)
    # The escalation is the whole answer: no "not covered" box under it, no sources.
    expect(page.locator(".notice--refused")).to_have_count(0)
    expect(page.locator("#answer")).not_to_contain_text("A base não cobre")
    expect(body.locator(".chip")).to_have_count(0)
    expect(page.locator("#history-list button").first).to_contain_text("alerta de emergência")
    page.screenshot(path=str(artifacts / f"poisoning-{screen_name}.png"), full_page=True)

    # Self-harm: the CVV first, and SAMU.
    new_conversation(page)
    self_harm = ask_real(page, SELF_HARM, expect_state=("answered", "refused"))
    assert self_harm["emergency"] == "self_harm", self_harm
    alert = page.get_by_role("alert")
    expect(alert).to_have_count(1)
    expect(alert.locator(".alert__title")).to_have_text("Peça ajuda agora")
    expect(alert).to_contain_text("CVV 188")
    expect(alert.get_by_role("link", name=re.compile("Ligar 188"))).to_have_attribute(
        "href", "tel:188"
    )
    expect(alert.get_by_role("link", name="Ligar 192 (SAMU)")).to_have_attribute("href", "tel:192")
    check_alert_first(page)
    expect(page.locator(".notice--refused")).to_have_count(0)
    expect(page.locator("#answer")).not_to_contain_text("A base não cobre")


def test_not_covered_with_the_real_service(screen: Page, feedback_db: Path) -> None:
    page = screen
    result = ask_real(page, NOT_COVERED, expect_state="refused")
    assert result["decision"]["outcome"] == "not_covered", result["decision"]
    assert result["uncovered_terms"] == ["ozempic"], result
    assert result["citations"] == [] and result["refused"] is True, result
    box = page.locator(".notice--refused")
    expect(box).to_have_count(1)
    expect(box).to_contain_text("A base não cobre essa pergunta")
    answer = box.locator("#answer-body")
    expect(answer).to_have_text(result["answer"])
    expect(answer).to_contain_text("não têm informação sobre ozempic")
    expect(answer).to_contain_text("farmacêutico ou médico")
    expect(page.locator("#answer .chip")).to_have_count(0)

    # The close topics the service suggested, as buttons to ask about them.
    suggestions = result["suggestions"]
    assert suggestions, "the service suggested no covered topic for ozempic"
    buttons = box.locator(".covered").get_by_role("button")
    expect(buttons).to_have_text([s["question"] for s in suggestions])
    for button in buttons.all():
        size = button.bounding_box()
        assert size and size["height"] >= 44, size
    assert page_fits(page)

    # A refusal can be rated too, with the reason stored.
    feedback = page.get_by_role("group", name="Esta resposta ajudou?")
    feedback.get_by_role("button", name="Não ajudou", exact=True).click()
    feedback.get_by_role("button", name="Não respondeu minha pergunta").click()
    expect(feedback.get_by_role("status")).to_have_text("Obrigado pela avaliação.")
    stored_rating(feedback_db, result["answer_id"], (False, "nao_respondeu"))

    # Choosing one asks it as a question of its own, answered from that card.
    requests = api_requests(page)
    buttons.first.click()
    wait_done(page, "answered")
    assert ask_bodies(requests) == [{"question": suggestions[0]["question"]}]
    expect(page.locator("#asked-text")).to_have_text(suggestions[0]["question"])
    expect(page.locator(".notice--refused")).to_have_count(0)
    expect(
        page.locator(f'#answer-body .chip[data-card="{suggestions[0]["id"]}"]').first
    ).to_have_text(f"Fonte: {suggestions[0]['title']}")
