"""An elderly patient on a phone (issue 27, in part), against the real service: one source
chip per cited card, counts that say what they count (and in the right number), the
"Detalhes técnicos" in plain Portuguese, and the card panel taking focus to its close button
and keeping Tab inside it, where it covers the page and where it sits beside the answer."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.helpers import (
    FIRST_TURN,
    ask,
    ask_real,
    citation,
    final,
    fulfill_sse,
    is_phone,
    sse,
)

pytestmark = pytest.mark.browser

FRANCE = "qual a capital da França?"  # refused by the real service: not covered
INSIDE_PANEL = "document.getElementById('card-panel').contains(document.activeElement)"
# The ids of the panel's controls that Tab reaches, in order (what a keyboard user can land on).
PANEL_TABBABLE = """() => [...document.querySelectorAll(
    '#card-panel :is(button, a[href], summary, input, select, textarea, [tabindex])')]
  .filter((n) => n.tabIndex >= 0 && !n.disabled && n.getClientRects().length)
  .map((n) => n.id || n.outerHTML)"""
# What the old "Detalhes técnicos" printed as it came: the decision's signal names.
OLD_KEYS = (
    "top_sim",
    "threshold",
    "margin",
    "p_covered",
    "coverage_top",
    "answer_p",
    "names:",
    "emergency:",
    "subkind",
    "signals",
)


def cited_ids(result: dict[str, Any]) -> list[str]:
    """The card of every [cite:...] marker of an answer, in order, repeats included."""
    return re.findall(r"\[cite:\s*([^\]\s]+)\s*\]", result["answer"])


def test_one_chip_per_cited_card(screen: Page) -> None:
    page = screen
    result = ask_real(page, FIRST_TURN, expect_state="answered")
    markers = cited_ids(result)
    cards = sorted(set(markers))
    # The premise: the answer quotes at least one card more than once.
    assert len(markers) > len(cards), markers
    chips = page.locator("#answer-body .chip")
    expect(chips).to_have_count(len(cards))
    assert sorted(c.get_attribute("data-card") or "" for c in chips.all()) == cards
    expect(page.locator('#answer-body .chip[data-card="card-001"]')).to_have_text(
        "Fonte: Levotiroxina: como e quando tomar"
    )
    assert "[cite:" not in page.locator("#answer-body").inner_text()
    # Every sentence of the answer is still there.
    text = " ".join(page.locator("#answer-body").inner_text().split())
    for sentence in re.split(r"\s*\[cite:[^\]]*\]\s*", result["answer"]):
        if sentence.strip():
            assert " ".join(sentence.split()) in text, sentence


def test_counts_say_what_they_count(screen: Page) -> None:
    page = screen
    first = ask_real(page, FIRST_TURN, expect_state="answered")
    assert [c["id"] for c in first["citations"]] == ["card-001"], first["citations"]
    bar = page.locator("#conversation-text")
    expect(bar).to_have_text(
        "Conversa em andamento: 1 pergunta respondida. A próxima pode continuar o mesmo assunto."
    )
    items = page.locator("#history-list .history__state")
    expect(items.first).to_have_text("1 fonte")

    refused = ask_real(page, FRANCE, expect_state="refused")
    assert refused["refused"] and refused["decision"]["outcome"] == "not_covered", refused
    # Two questions in the conversation, only one of them answered.
    expect(bar).to_have_text(
        "Conversa em andamento: 2 perguntas nesta conversa, 1 respondida. "
        "A próxima pode continuar o mesmo assunto."
    )
    expect(items).to_have_text(["fora da base", "1 fonte"])
    expect(page.locator("#main")).not_to_contain_text("(s)")


def test_two_sources_are_counted_in_the_plural(screen: Page) -> None:
    page = screen
    answer = (
        "Tome em jejum. [cite:card-001] Espere antes do café. [cite:card-002] "
        "Com água. [cite:card-001]"
    )
    result = final(
        answer,
        [
            citation("card-001", "Levotiroxina: como e quando tomar"),
            citation("card-002", "Levotiroxina e alimentos"),
        ],
    )
    stream = sse(("delta", {"text": answer}), ("final", result))
    page.route("**/api/ask/stream", fulfill_sse(stream))
    ask(page, "como tomar a levotiroxina?", expect_state="answered")
    expect(page.locator("#answer-body .chip")).to_have_count(2)
    expect(page.locator("#history-list .history__state")).to_have_text(["2 fontes"])
    expect(page.locator("#main")).not_to_contain_text("(s)")


def open_details(page: Page) -> Locator:
    details = page.locator("#answer-extra details")
    details.get_by_text("Detalhes técnicos").click()
    expect(details).to_have_attribute("open", "")
    return details


def check_details(details: Locator, result: dict[str, Any]) -> None:
    """Portuguese only; the cards consulted with their titles, highest score first."""
    cards = details.locator(".details__cards li")
    expected = sorted(result["retrieval"], key=lambda r: -r["score"])
    expect(cards).to_have_count(len(expected))
    for item, card in zip(cards.all(), expected, strict=True):
        expect(item).to_have_attribute("data-card", card["id"])
        # The title comes in (from the card itself when the answer did not cite it).
        expect(item.locator(".details__card-title")).not_to_have_text(
            re.compile(r"^card-|carregando|indisponível|sem título")
        )
    scores = re.findall(r"semelhança (\d+,\d+)", " ".join(cards.all_inner_texts()))
    shown = [float(x.replace(",", ".")) for x in scores]
    assert shown == sorted(shown, reverse=True) and len(shown) == len(expected), shown
    text = details.inner_text()
    assert "[object Object]" not in text
    for key in OLD_KEYS:
        assert key not in text, (key, text)
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", text), text  # no snake_case name at all
    assert "{" not in text and "}" not in text, text  # no JSON


def test_technical_details_in_portuguese(screen: Page) -> None:
    page = screen
    answered = ask_real(page, FIRST_TURN, expect_state="answered")
    details = open_details(page)
    check_details(details, answered)
    expect(details).to_contain_text("Por que foi respondida")
    expect(details).to_contain_text(answered["decision"]["reason"])
    expect(details.locator('.details__cards li[data-card="card-001"]')).to_contain_text(
        "Levotiroxina: como e quando tomar"
    )
    expect(details.locator('.details__cards li[data-card="card-001"]')).to_contain_text(
        "citado na resposta"
    )

    refused = ask_real(page, FRANCE, expect_state="refused")
    details = open_details(page)
    check_details(details, refused)
    expect(details).to_contain_text("Por que não foi respondida")
    expect(details).to_contain_text(refused["decision"]["reason"])
    expect(details).not_to_contain_text("citado na resposta")


def test_card_panel_takes_focus_and_keeps_tab_inside_it(screen: Page) -> None:
    """At both sizes: focus on the close button at open, Tab from the last control back to
    the first, Shift+Tab from the first to the last, never the footer or the page behind."""
    page = screen
    ask_real(page, FIRST_TURN, expect_state="answered")
    chip = page.locator('#answer-body .chip[data-card="card-001"]')
    chip.click()
    panel = page.get_by_role("dialog", name="Levotiroxina: como e quando tomar")
    close = panel.get_by_role("button", name="Fechar cartão")
    back = panel.get_by_role("button", name="Voltar à resposta")
    expect(close).to_be_focused()
    expect(panel.locator(".card-text p").first).to_be_visible()
    expect(panel).to_have_attribute("aria-busy", "false")
    expect(close).to_be_focused()  # the card arriving does not move focus
    # Covering the page on the phone (modal), beside the answer on a desktop (not modal).
    expect(panel).to_have_attribute("aria-modal", "true" if is_phone(page) else "false")
    tabbable = page.evaluate(PANEL_TABBABLE)
    assert tabbable[0] == "card-panel-close" and tabbable[-1] == "card-panel-back", tabbable

    page.keyboard.press("Shift+Tab")  # from the first control: to the last
    expect(back).to_be_focused()
    page.keyboard.press("Tab")  # from the last control: back to the first, not the footer
    expect(close).to_be_focused()
    # Tab walks forward through every control and comes round to the close button.
    for expected in [*tabbable[1:], tabbable[0]]:
        page.keyboard.press("Tab")
        expect(panel.locator(f"#{expected}")).to_be_focused()
    for key in ["Tab"] * 6 + ["Shift+Tab"] * 6:
        page.keyboard.press(key)
        assert page.evaluate(INSIDE_PANEL), f"{key} took focus out of the card"

    if not is_phone(page):
        # Beside the answer the page stays usable: Tab from the question box is its own.
        page.get_by_label("Sua pergunta").focus()
        page.keyboard.press("Tab")
        expect(page.get_by_role("button", name="Perguntar")).to_be_focused()
        close.focus()
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    expect(chip).to_be_focused()
