"""The page against the real service: streamed answer with titled chips, the card panel
(mouse and keyboard), refusal, HTML in a question, validation, history, the optional API
key, and a phone-sized screen. (Emergency escalations: test_answers.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.helpers import (
    CHEST_PAIN,
    HTML_QUESTION,
    LEVO,
    OUT_OF_SCOPE,
    all_requests,
    api_requests,
    ask,
    chip_focused,
    horizontal_overflow,
    load_ready,
    settle,
    wait_done,
)
from tests.browser.pages import PHONE, PageProblems, open_page
from tests.service import Service

pytestmark = pytest.mark.browser

# Records, while an answer is on its way, the states the page went through.
WATCH_STATES = """
() => {
  const seen = window.__seen = {loading: false, disabled: false, busy: false};
  const body = document.getElementById('answer-body');
  const look = () => {
    if (document.querySelector('#answer-notices .loading')) seen.loading = true;
    if (document.getElementById('question').disabled) seen.disabled = true;
    if (body.getAttribute('aria-busy') === 'true') seen.busy = true;
  };
  const all = {subtree: true, childList: true, attributes: true};
  new MutationObserver(look).observe(document.body, all);
}
"""


def test_page_basics(page: Page) -> None:
    expect(page).to_have_title(re.compile("Cartões de Saúde"))
    assert page.evaluate("document.documentElement.lang") == "pt-BR"
    disclaimer = page.get_by_role("complementary", name="Aviso importante")
    expect(disclaimer).to_contain_text("educativo e sintético")
    expect(disclaimer).to_contain_text("não substituem a orientação")
    expect(disclaimer).to_contain_text("192")
    expect(page.get_by_role("button", name="Perguntar")).to_be_visible()
    expect(page.get_by_role("dialog")).to_have_count(0)


def test_answer_streams_with_titled_chips(page: Page, artifacts: Path) -> None:
    requests = api_requests(page)
    page.evaluate(WATCH_STATES)
    ask(page, LEVO, expect_state="answered")

    seen = page.evaluate("window.__seen")
    assert seen["loading"] and seen["disabled"] and seen["busy"], seen

    body = page.locator("#answer-body")
    expect(body).to_contain_text("estômago vazio")
    expect(body).to_have_attribute("aria-live", "polite")
    expect(body).to_have_attribute("aria-busy", "false")
    chips = body.locator(".chip")
    assert chips.count() >= 1
    expect(body.locator(".chip--provisional")).to_have_count(0)
    # No marker is left as text; every chip shows its card's title, not its id.
    assert "[cite:" not in body.inner_text()
    levo = body.locator('.chip[data-card="card-001"]').first
    expect(levo).to_have_text("Fonte: Levotiroxina: como e quando tomar")
    expect(
        page.get_by_role("button", name="Fonte: Levotiroxina: como e quando tomar").first
    ).to_be_visible()
    for chip in chips.all():
        label = chip.locator(".chip__label").inner_text()
        assert label and not label.startswith("card-"), label

    expect(page.locator("#asked-text")).to_have_text(LEVO)
    expect(page.get_by_label("Sua pergunta")).to_have_value("")
    expect(page.get_by_label("Sua pergunta")).to_be_focused()
    expect(page.locator("#history-list")).to_contain_text(LEVO)

    stream = [r for r in requests if r.url.endswith("/api/ask/stream")]
    assert len(stream) == 1 and stream[0].method == "POST"
    assert stream[0].post_data_json == {"question": LEVO}
    assert "x-api-key" not in stream[0].headers
    page.screenshot(path=str(artifacts / "answered-desktop.png"), full_page=True)


def test_chip_opens_card_panel_by_click_and_keyboard(page: Page, artifacts: Path) -> None:
    ask(page, LEVO, expect_state="answered")
    chip = page.locator('#answer-body .chip[data-card="card-001"]').first
    panel = page.get_by_role("dialog", name="Levotiroxina: como e quando tomar")

    chip.click()
    expect(panel).to_be_visible()
    expect(chip).to_have_attribute("aria-expanded", "true")
    expect(panel.locator(".card-text p")).to_have_count(5)  # one <p> per paragraph
    expect(panel.locator(".card-text")).to_contain_text("30 a 60 minutos antes do café")
    meta = panel.locator(".card-meta")
    expect(meta).to_contain_text("Fonte")
    expect(meta).to_contain_text("Conteúdo educativo sintético")
    expect(meta).to_contain_text("CC-BY-4.0")
    expect(meta).to_contain_text("Acesso em")
    expect(meta).to_contain_text("20/05/2026")
    expect(meta.locator("dt", has_text="Para quem")).to_have_count(1)
    expect(meta.locator("dt:has-text('Para quem') + dd")).to_have_text("adultos, idosos")
    # Focus goes to the close button (issue 27), the title is still the dialog's name.
    expect(panel.get_by_role("button", name="Fechar cartão")).to_be_focused()
    expect(panel.get_by_role("heading", name="Levotiroxina: como e quando tomar")).to_be_visible()
    # Beside the answer on a wide screen: not modal, the answer stays usable.
    expect(panel).to_have_attribute("aria-modal", "false")
    assert page.evaluate("document.getElementById('main').inert") is False
    box = page.locator("#card-panel").bounding_box()
    assert box and box["x"] > 640
    page.screenshot(path=str(artifacts / "answered-card-desktop.png"))

    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    expect(chip).to_have_attribute("aria-expanded", "false")
    assert chip_focused(page)

    # Keyboard only: Enter on the focused chip opens, Escape closes and focus comes back.
    page.keyboard.press("Enter")
    expect(panel).to_be_visible()
    assert page.evaluate("document.getElementById('card-panel').contains(document.activeElement)")
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    assert chip_focused(page)

    # Tab reaches the chips from the question box; the close button closes too.
    page.get_by_label("Sua pergunta").focus()
    for _ in range(10):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('chip')"):
            break
    else:
        raise AssertionError("Tab never reached a citation chip")
    page.keyboard.press("Enter")
    expect(page.get_by_role("dialog")).to_be_visible()
    page.get_by_role("button", name="Fechar cartão").click()
    expect(page.get_by_role("dialog")).to_have_count(0)

    # Typing a new question beside the open panel: Escape closes it but keeps the caret.
    chip.click()
    question = page.get_by_label("Sua pergunta")
    question.click()
    question.type("outra pergunta")
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    expect(question).to_be_focused()


def test_unknown_card_shows_error_in_panel(page: Page) -> None:
    ask(page, LEVO, expect_state="answered")
    # A chip whose card does not exist (e.g. the index changed since the answer).
    page.evaluate("document.querySelector('#answer-body .chip').dataset.card = 'card-999'")
    page.locator("#answer-body .chip").first.click()
    panel = page.get_by_role("dialog")
    expect(panel.get_by_role("alert")).to_contain_text("Cartão não encontrado")
    expect(panel).to_contain_text("no card with id 'card-999'")  # the server's message
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()


def test_out_of_scope_question_is_refused(page: Page) -> None:
    ask(page, OUT_OF_SCOPE, expect_state="refused")
    notice = page.locator(".notice--refused")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("A base não cobre essa pergunta")
    expect(page.locator("#answer-body")).to_contain_text(
        "A base de conhecimento não cobre essa pergunta"
    )
    expect(page.locator("#answer-body .chip")).to_have_count(0)
    expect(page.get_by_role("alert")).to_have_count(0)
    expect(page.locator("#history-list")).to_contain_text("fora da base")


def test_html_in_question_is_shown_as_text(page: Page, problems: PageProblems) -> None:
    requests = all_requests(page)
    ask(page, HTML_QUESTION)
    expect(page.locator("#asked-text")).to_have_text(HTML_QUESTION)
    expect(page.get_by_text(HTML_QUESTION).first).to_be_visible()
    expect(page.locator("#history-list")).to_contain_text(HTML_QUESTION)
    assert page.locator("img").count() == 0
    assert page.locator("[onerror]").count() == 0
    expect(page.locator("#answer-body .chip").first).to_be_visible()
    # An <img src=x onerror=...> that was ever parsed would have requested /x first.
    settle(page)
    assert [r.url for r in requests if r.url.endswith("/x")] == []
    assert problems.dialogs == []


def test_empty_question_is_not_sent(page: Page) -> None:
    requests = api_requests(page)
    box = page.get_by_label("Sua pergunta")
    box.press("Enter")
    message = page.get_by_text("Escreva a sua pergunta antes de enviar.")
    expect(message).to_be_visible()
    expect(box).to_have_attribute("aria-invalid", "true")
    expect(box).to_be_focused()
    box.fill("   \n  ")
    page.get_by_role("button", name="Perguntar").click()
    expect(message).to_be_visible()
    settle(page)
    assert requests == []
    expect(page.locator("#answer")).to_be_hidden()

    box.fill("levotiroxina")
    expect(message).to_be_hidden()
    expect(box).not_to_have_attribute("aria-invalid", "true")


def test_shift_enter_adds_a_line(page: Page) -> None:
    requests = api_requests(page)
    box = page.get_by_label("Sua pergunta")
    box.type("primeira linha")
    box.press("Shift+Enter")
    box.type("segunda linha")
    expect(box).to_have_value("primeira linha\nsegunda linha")
    assert requests == []


def test_history_shows_earlier_answers_again(page: Page) -> None:
    ask(page, LEVO, expect_state="answered")
    ask(page, OUT_OF_SCOPE, expect_state="refused")
    items = page.locator("#history-list button")
    expect(items).to_have_count(2)
    expect(items.nth(0)).to_contain_text(OUT_OF_SCOPE)  # newest first

    requests = api_requests(page)
    items.nth(1).click()
    expect(page.locator("#asked-text")).to_have_text(LEVO)
    expect(page.locator('#answer-body .chip[data-card="card-001"]').first).to_contain_text(
        "Levotiroxina: como e quando tomar"
    )
    expect(page.locator(".notice--refused")).to_have_count(0)
    assert requests == []  # shown from memory, not asked again

    page.get_by_role("button", name="Limpar").click()
    expect(page.locator("#history")).to_be_hidden()


def test_suggestion_asks_directly(page: Page) -> None:
    page.get_by_role("button", name="Como guardar a insulina?").click()
    wait_done(page)
    expect(page.locator("#asked-text")).to_have_text("Como guardar a insulina?")
    expect(page.locator("#suggestions")).to_be_hidden()


def test_api_key_from_local_storage_is_sent(browser: Browser, service: Service) -> None:
    problems = PageProblems()
    context, page = open_page(browser, service.url, problems)
    page.add_init_script("window.localStorage.setItem('apiKey', 'chave-de-teste')")
    try:
        load_ready(page, lambda: page.goto(service.url + "/"))
        requests = api_requests(page)
        ask(page, LEVO, expect_state="answered")
        page.locator("#answer-body .chip").first.click()
        expect(page.locator(".card-text p").first).to_be_visible()
        sent = [r for r in requests if "/api/" in r.url]
        assert {r.url.rsplit("/", 2)[-2] for r in sent} >= {"ask", "cards"}
        assert all(r.headers.get("x-api-key") == "chave-de-teste" for r in sent)
    finally:
        context.close()
    assert not problems.errors and not problems.csp


def test_phone_screen(browser: Browser, service: Service, artifacts: Path) -> None:
    problems = PageProblems()
    context, page = open_page(browser, service.url, problems, viewport=PHONE, has_touch=True)
    try:
        load_ready(page, lambda: page.goto(service.url + "/"))
        assert horizontal_overflow(page) == 0
        ask(page, CHEST_PAIN, expect_state="answered")
        assert horizontal_overflow(page) == 0
        expect(page.get_by_role("alert")).to_be_in_viewport()
        button = page.get_by_role("button", name="Perguntar")
        box = button.bounding_box()
        assert box and box["height"] >= 44 and box["width"] > 300  # full-width, tappable
        page.screenshot(path=str(artifacts / "answered-phone.png"), full_page=True)

        page.locator("#answer-body .chip").first.tap()
        panel = page.get_by_role("dialog")
        expect(panel.locator(".card-text p").first).to_be_visible()
        size = panel.bounding_box()
        assert size and size["width"] == PHONE["width"]  # covers the screen
        expect(page.get_by_role("button", name="Fechar cartão")).to_be_in_viewport()
        # It covers the page, so the page behind it is inert until it closes.
        expect(panel).to_have_attribute("aria-modal", "true")
        assert page.evaluate("document.getElementById('main').inert") is True
        assert horizontal_overflow(page) == 0
        page.screenshot(path=str(artifacts / "card-phone.png"))
        page.get_by_role("button", name="Fechar cartão").tap()
        expect(panel).to_be_hidden()
        assert page.evaluate("document.getElementById('main').inert") is False
        assert chip_focused(page)
    finally:
        context.close()
    assert not problems.errors and not problems.csp and not problems.dialogs
