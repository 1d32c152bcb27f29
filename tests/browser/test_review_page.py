"""Page fixes from the patient review (issue 16, item 5), each on the desktop screen
(1280x800) and the phone screen (390x844, touch), against the real service: the card can
always be closed, the conversation survives a reload and Back/Forward, a long question does
not widen the page, a refusal is said once, headings and focus, and source chips that can
be read and tapped."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, Route, expect

from tests.browser.helpers import (
    LEVO,
    OUT_OF_SCOPE,
    ask,
    chip_focused,
    citation,
    contrast,
    final,
    fulfill_sse,
    is_phone,
    load_ready,
    page_fits,
    reload_ready,
    sse,
    wait_done,
)

pytestmark = pytest.mark.browser

# 150 characters, one of them a long unbroken word, as a patient might paste it.
LONG_QUESTION = (
    "Minha mãe de setenta e oito anos toma levotiroxina-sódica-cinquenta-microgramas "
    "todo dia cedo; ela pode tomar junto com o café com leite e o pão cedo?"
)
assert len(LONG_QUESTION) == 150, len(LONG_QUESTION)

INSIDE_PANEL = "document.getElementById('card-panel').contains(document.activeElement)"


def hit_by_a_tap(target: Locator) -> bool:
    """Whether a tap at the element's centre lands on it (nothing is drawn on top)."""
    return bool(
        target.evaluate(
            """(node) => {
              const r = node.getBoundingClientRect();
              const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
              return node === top || node.contains(top);
            }"""
        )
    )


def open_levo_card(page: Page) -> tuple[Locator, Locator]:
    ask(page, LEVO, expect_state="answered")
    chip = page.locator('#answer-body .chip[data-card="card-001"]').first
    chip.click()
    panel = page.get_by_role("dialog", name="Levotiroxina: como e quando tomar")
    expect(panel.locator(".card-text p").first).to_be_visible()
    return chip, panel


def test_card_can_always_be_closed(screen: Page) -> None:
    page = screen
    chip, panel = open_levo_card(page)
    scroller = page.locator("#card-panel")
    scroller.evaluate("(p) => { p.scrollTop = p.scrollHeight; }")
    if is_phone(page):
        # The card is longer than the phone's screen, so it really was scrolled.
        assert scroller.evaluate("(p) => p.scrollTop") > 200
    # At the end of the card: the close button is still pinned in view and can be tapped,
    # and a way back to the answer ends the card.
    close = page.get_by_role("button", name="Fechar cartão")
    expect(close).to_be_in_viewport()
    assert hit_by_a_tap(close)
    back = panel.get_by_role("button", name="Voltar à resposta")
    # On a desktop screen the page may need a little scrolling too (the panel starts below
    # the header); scroll as a reader would, just enough.
    back.evaluate("(b) => b.scrollIntoView({block: 'nearest'})")
    expect(back).to_be_in_viewport()
    expect(close).to_be_in_viewport()
    assert hit_by_a_tap(back)
    back.click()
    expect(panel).to_be_hidden()
    assert chip_focused(page)

    # The browser's Back button closes the card and stays on the page.
    url = page.url
    chip.click()
    expect(panel).to_be_visible()
    page.go_back()
    expect(panel).to_be_hidden()
    assert page.url == url
    expect(page.locator("#asked-text")).to_have_text(LEVO)
    assert chip_focused(page)
    # Forward opens it again, a reload keeps it open, and Back still closes it.
    page.go_forward()
    expect(panel).to_be_visible()
    expect(chip).to_have_attribute("aria-expanded", "true")
    reload_ready(page)
    expect(panel.locator(".card-text p").first).to_be_visible()
    page.go_back()
    expect(page.locator("#card-panel")).to_be_hidden()
    assert page.url == url
    expect(page.locator("#asked-text")).to_have_text(LEVO)

    # The pinned close button works after scrolling too.
    chip.click()
    expect(panel.locator(".card-text p").first).to_be_visible()
    scroller.evaluate("(p) => { p.scrollTop = p.scrollHeight; }")
    close.click()
    expect(panel).to_be_hidden()
    assert chip_focused(page)


def test_conversation_survives_reload_and_back_forward(screen: Page) -> None:
    page = screen
    ask(page, OUT_OF_SCOPE, expect_state="refused")
    chip, panel = open_levo_card(page)
    page.get_by_role("button", name="Fechar cartão").click()
    expect(panel).to_be_hidden()

    def conversation_is_there() -> None:
        items = page.locator("#history-list button")
        expect(items).to_have_count(2)
        expect(items.nth(0)).to_contain_text(LEVO)
        expect(items.nth(1)).to_contain_text(OUT_OF_SCOPE)
        expect(page.locator("#asked-text")).to_have_text(LEVO)
        expect(page.locator('#answer-body .chip[data-card="card-001"]').first).to_have_text(
            "Fonte: Levotiroxina: como e quando tomar"
        )
        # The earlier answer is there too, without asking again.
        items.nth(1).click()
        expect(page.locator(".notice--refused")).to_contain_text("A base não cobre essa pergunta")
        items.nth(0).click()
        expect(page.locator("#asked-text")).to_have_text(LEVO)

    # Closing the card left no extra history entry: one Back leaves the page...
    page.go_back()
    assert page.url == "about:blank"
    # ...and Forward brings the conversation back: a new load of the page, so it is waited
    # for like any other (a bare go_forward once waited on a page whose app.js had not run:
    # CI, 2026-12-06). Should that load fail, the second try is a reload, as a patient's.
    load_ready(page, lambda: page.go_forward() if page.url == "about:blank" else page.reload())
    wait_done(page, "answered")
    conversation_is_there()

    reload_ready(page)
    wait_done(page, "answered")
    conversation_is_there()
    # Kept for this tab only, never in localStorage.
    assert "levotiroxina" in page.evaluate("JSON.stringify(sessionStorage)")
    assert "levotiroxina" not in page.evaluate("JSON.stringify(localStorage)")

    page.get_by_role("button", name="Limpar").click()
    reload_ready(page)
    expect(page.get_by_role("button", name="Perguntar")).to_be_visible()
    expect(page.locator("#history")).to_be_hidden()
    expect(page.locator("#answer")).to_be_hidden()
    expect(page.locator("#suggestions")).to_be_visible()
    assert page.evaluate("sessionStorage.length") == 0


def test_long_question_keeps_the_page_width(screen: Page) -> None:
    page = screen
    ask(page, LONG_QUESTION)
    assert page_fits(page)
    ask(page, LEVO, expect_state="answered")
    old = page.locator("#history-list button").nth(1)
    expect(old).to_contain_text(LONG_QUESTION[:100])
    assert page_fits(page)
    width = page.evaluate("window.innerWidth")
    box = old.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= width

    old.click()  # shown again in the answer view
    expect(page.locator("#asked-text")).to_have_text(LONG_QUESTION)
    assert page_fits(page)


def test_refusal_is_said_once(screen: Page) -> None:
    page = screen
    ask(page, OUT_OF_SCOPE, expect_state="refused")
    box = page.locator(".notice--refused")
    expect(box).to_have_count(1)
    expect(box).to_contain_text("A base não cobre essa pergunta")
    # The service's own text is the body of the box, not a second paragraph below it.
    expect(box.locator("#answer-body")).to_contain_text(
        "A base de conhecimento não cobre essa pergunta"
    )
    expect(box.locator("p")).to_have_count(2)  # the title and the service's sentence
    text = page.locator("#answer").inner_text()
    assert text.count("médico ou farmacêutico") == 1, text
    assert "Os cartões disponíveis não trazem" not in text
    expect(page.locator("#answer-body .chip")).to_have_count(0)


def test_one_h1_and_ordered_headings(screen: Page) -> None:
    page = screen
    ask(page, LEVO, expect_state="answered")
    expect(
        page.get_by_role("heading", level=1, name="Cartões de Saúde", exact=True)
    ).to_be_visible()
    levels = page.evaluate(
        "[...document.querySelectorAll('h1, h2, h3, h4, h5, h6')]"
        ".filter((h) => h.getClientRects().length).map((h) => Number(h.tagName[1]))"
    )
    assert levels[0] == 1 and levels.count(1) == 1, levels
    assert all(b - a <= 1 for a, b in zip(levels, levels[1:], strict=False)), levels


def test_focus_stays_on_the_answer_while_it_loads(screen: Page) -> None:
    page = screen
    held: list[Route] = []
    page.route("**/api/ask/stream", lambda route: held.append(route))
    box = page.get_by_label("Sua pergunta")
    box.fill(LEVO)
    box.press("Enter")
    expect(page.locator("#answer")).to_have_attribute("data-state", "loading")
    expect(box).to_be_disabled()
    expect(page.locator("#answer-title")).to_be_focused()
    assert page.evaluate("document.activeElement !== document.body")
    expect(page.locator("#status")).to_have_text("Buscando a resposta…")
    assert len(held) == 1
    held[0].continue_()
    wait_done(page, "answered")
    assert page.evaluate("document.activeElement !== document.body")
    expect(page.locator("#status")).to_have_text("Resposta pronta.")


def test_status_leaves_searching_after_an_error(screen: Page) -> None:
    page = screen
    page.route(
        "**/api/ask/stream",
        lambda route: route.fulfill(
            status=500, json={"error": {"code": "internal_error", "message": "boom"}}
        ),
    )
    ask(page, LEVO, expect_state="error")
    expect(page.locator("#status")).to_have_text("Não foi possível obter a resposta.")
    expect(page.get_by_role("button", name="Tentar de novo")).to_be_focused()


def test_focus_stays_in_the_card_when_it_covers_the_page(screen: Page) -> None:
    page = screen
    skip = page.get_by_role("link", name="Ir para a pergunta")
    page.keyboard.press("Tab")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    page.keyboard.press("Enter")
    expect(page.get_by_label("Sua pergunta")).to_be_focused()
    assert "#" not in page.url  # no history entry for the skip

    chip, panel = open_levo_card(page)
    if is_phone(page):
        expect(panel).to_have_attribute("aria-modal", "true")
        for key in ["Tab"] * 12 + ["Shift+Tab"] * 12:
            page.keyboard.press(key)
            assert page.evaluate(INSIDE_PANEL), f"{key} took focus out of the card"
        # The skip link can no longer take focus and draw over the card's head.
        assert skip.evaluate("(a) => a.inert")
        expect(skip).not_to_be_in_viewport()
        assert hit_by_a_tap(page.get_by_role("button", name="Fechar cartão"))
    else:
        # Beside the answer the card is not modal: the page stays usable (nothing inert, a
        # Tab from it is its own), but a Tab from inside the card cycles in it (issue 27).
        expect(panel).to_have_attribute("aria-modal", "false")
        assert skip.evaluate("(a) => !a.inert")
        page.get_by_label("Sua pergunta").focus()
        page.keyboard.press("Tab")
        assert not page.evaluate(INSIDE_PANEL)
        assert page.evaluate("document.activeElement !== document.body")
        panel.get_by_role("button", name="Voltar à resposta").focus()
        page.keyboard.press("Tab")
        expect(panel.get_by_role("button", name="Fechar cartão")).to_be_focused()
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    assert chip_focused(page)
    assert skip.evaluate("(a) => !a.inert")


def check_chip(page: Page, chip: Locator) -> None:
    style = chip.evaluate(
        "(c) => { const s = getComputedStyle(c); return [s.borderTopColor, s.borderRightColor,"
        " s.borderBottomColor, s.borderLeftColor, s.borderTopWidth]; }"
    )
    assert len(set(style[:4])) == 1, style
    assert contrast(style[0]) >= 3.0, (style[0], contrast(style[0]))
    assert float(style[4].removesuffix("px")) >= 1, style
    box = chip.bounding_box()
    width = page.evaluate("window.innerWidth")
    assert box and box["height"] >= 44, box
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, (box, width)
    # Nothing cut: the label is as wide as its text, and the whole title is there.
    assert chip.evaluate("(c) => c.scrollWidth <= c.clientWidth"), chip.inner_text()
    label = chip.locator(".chip__label")
    assert label.evaluate("(l) => l.scrollWidth <= l.clientWidth"), label.inner_text()


def test_source_chips_are_readable_and_tappable(screen: Page) -> None:
    page = screen
    ask(page, LEVO, expect_state="answered")
    chips = page.locator("#answer-body .chip")
    assert chips.count() >= 1
    for chip in chips.all():
        check_chip(page, chip)
    assert page_fits(page)


def test_long_source_title_wraps_instead_of_being_cut(screen: Page) -> None:
    page = screen
    title = (
        "Levotiroxina: como e quando tomar, com o café da manhã, leite, soja, cálcio, "
        "ferro e os outros remédios do dia"
    )
    answer = "Tome em jejum, com água. [cite:card-001]"
    result = final(answer, [citation("card-001", title)])
    page.route(
        "**/api/ask/stream", fulfill_sse(sse(("delta", {"text": answer}), ("final", result)))
    )
    ask(page, "como tomar a levotiroxina?", expect_state="answered")
    chip = page.locator("#answer-body .chip").first
    expect(chip.locator(".chip__label")).to_have_text(title)
    check_chip(page, chip)
    if is_phone(page):
        box = chip.bounding_box()
        assert box and box["height"] > 60, box  # wrapped onto several lines
    assert page_fits(page)
