"""Follow-up questions against the real service: the page sends the conversation's earlier
turns (each question and the cards its answer cited) with every question, shows the topic
the service assumed, and "Nova conversa" starts again without them. On the desktop and
phone screens where the new controls must fit; the bounds of what is sent on desktop."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import (
    DONE,
    FIRST_TURN,
    FOLLOW_UP,
    OUT_OF_SCOPE,
    api_requests,
    ask,
    ask_bodies,
    ask_real,
    is_phone,
    page_fits,
    reload_ready,
    wait_done,
)

pytestmark = pytest.mark.browser

LEVO_CARDS = {"card-001", "card-002"}  # the levotiroxina cards


def test_follow_up_is_answered_in_context_until_a_new_conversation(
    screen: Page, artifacts: Path
) -> None:
    page = screen
    requests = api_requests(page)
    bar = page.locator("#conversation")
    expect(bar).to_be_hidden()  # nothing to follow yet

    first = ask_real(page, FIRST_TURN, expect_state="answered")
    first_cards = [c["id"] for c in first["citations"]]
    assert first_cards and set(first_cards) <= LEVO_CARDS, first_cards
    expect(bar).to_be_visible()
    expect(bar).to_contain_text("1 pergunta respondida")

    second = ask_real(page, FOLLOW_UP, expect_state="answered")
    assert ask_bodies(requests) == [
        {"question": FIRST_TURN},
        {"question": FOLLOW_UP, "history": [{"question": FIRST_TURN, "citations": first_cards}]},
    ]
    # The service answered about the first question's medicine, and the page shows it.
    assert second["topic"] == "a levotiroxina", second
    cited = {c["id"] for c in second["citations"]}
    assert cited and cited <= LEVO_CARDS, cited
    body = page.locator("#answer-body")
    chips = body.locator(".chip")
    expect(chips.first).to_be_visible()
    assert {chip.get_attribute("data-card") for chip in chips.all()} == cited
    lead = body.locator(".answer__topic")
    expect(lead).to_have_text("Sobre a levotiroxina:")
    assert body.inner_text().startswith("Sobre a levotiroxina: ")  # reads as one sentence
    assert lead.evaluate("(n) => Number(getComputedStyle(n).fontWeight)") >= 700
    expect(page.locator("#asked-text")).to_have_text(FOLLOW_UP)
    expect(bar).to_contain_text("2 perguntas respondidas")
    new = bar.get_by_role("button", name="Nova conversa")
    size = new.bounding_box()
    assert size and size["height"] >= 44, size
    assert page_fits(page)
    screen_name = "phone" if is_phone(page) else "desktop"
    page.screenshot(path=str(artifacts / f"follow-up-{screen_name}.png"), full_page=True)

    # "Nova conversa": the answer and the bar go, the list marks where it began.
    new.click()
    expect(page.locator("#answer")).to_be_hidden()
    expect(bar).to_be_hidden()
    expect(page.locator("#suggestions")).to_be_visible()
    expect(page.get_by_label("Sua pergunta")).to_be_focused()
    expect(page.locator("#status")).to_have_text(
        "Nova conversa: as próximas perguntas não dependem das anteriores."
    )
    items = page.locator("#history-list > li")
    expect(items).to_have_count(3)
    expect(items.nth(0)).to_have_text("Conversa anterior")
    expect(items.nth(1)).to_contain_text(FOLLOW_UP)
    expect(items.nth(2)).to_contain_text(FIRST_TURN)

    # The same follow-up now goes alone, and is answered without an assumed topic.
    third = ask_real(page, FOLLOW_UP, expect_state=DONE)
    assert ask_bodies(requests)[-1] == {"question": FOLLOW_UP}
    assert third["topic"] is None, third
    assert not third["answer"].startswith("Sobre"), third["answer"]
    expect(body.locator(".answer__topic")).to_have_count(0)
    assert not body.inner_text().startswith("Sobre")
    chips = body.locator(".chip")
    assert {chip.get_attribute("data-card") for chip in chips.all()} == {
        c["id"] for c in third["citations"]
    }
    expect(bar).to_contain_text("1 pergunta respondida")
    expect(items.nth(0)).to_contain_text(FOLLOW_UP)
    expect(items.nth(1)).to_have_text("Conversa anterior")
    assert page_fits(page)


# More than the API's 500 characters for an earlier question.
LONG_TURN = ("Tomo levotiroxina todo dia cedo e queria entender melhor o horário certo. " * 8)[
    :590
] + " Posso tomar junto com o café?"
assert len(LONG_TURN) > 500


def test_history_is_bounded_and_kept_in_the_tab(page: Page) -> None:
    requests = api_requests(page)
    ask(page, FIRST_TURN, expect_state="answered")
    long = ask_real(page, LONG_TURN)
    ask(page, OUT_OF_SCOPE, expect_state="refused")
    # A question that got no answer is not a turn of the conversation.
    page.context.set_offline(True)
    ask(page, "e à noite?", expect_state="error")
    page.context.set_offline(False)
    insulin = ask_real(page, "como guardar a insulina?", expect_state="answered")
    # Four turns, three of them answered: the refusal is a turn, not an answered one.
    expect(page.locator("#conversation")).to_contain_text(
        "4 perguntas nesta conversa, 3 respondidas"
    )

    reload_ready(page)  # the conversation is kept in the tab
    wait_done(page, "answered")
    expect(page.locator("#asked-text")).to_have_text("como guardar a insulina?")
    expect(page.locator("#conversation")).to_contain_text(
        "4 perguntas nesta conversa, 3 respondidas"
    )
    ask(page, FOLLOW_UP)
    # The last three answered turns, oldest first; each question within the API's 500
    # characters; the cards each answer cited (none for the refusal).
    assert ask_bodies(requests)[-1] == {
        "question": FOLLOW_UP,
        "history": [
            {
                "question": LONG_TURN.strip()[:500].strip(),
                "citations": [c["id"] for c in long["citations"]],
            },
            {"question": OUT_OF_SCOPE, "citations": []},
            {
                "question": "como guardar a insulina?",
                "citations": [c["id"] for c in insulin["citations"]],
            },
        ],
    }

    # A new conversation is kept across a reload too: nothing of the old one is on show,
    # and the next question goes alone.
    page.get_by_role("button", name="Nova conversa").click()
    reload_ready(page)
    expect(page.locator("#history-list > li").first).to_have_text("Conversa anterior")
    expect(page.locator("#conversation")).to_be_hidden()
    expect(page.locator("#answer")).to_be_hidden()
    expect(page.locator("#suggestions")).to_be_visible()
    ask(page, FOLLOW_UP)
    assert ask_bodies(requests)[-1] == {"question": FOLLOW_UP}
