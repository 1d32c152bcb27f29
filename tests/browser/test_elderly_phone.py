"""An elderly patient on a phone (issue 27, in part), against the real service: one source
chip per cited card, and counts that say what they count (in the right number)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import (
    FIRST_TURN,
    ask,
    ask_real,
    citation,
    final,
    fulfill_sse,
    sse,
)

pytestmark = pytest.mark.browser

FRANCE = "qual a capital da França?"  # refused by the real service: not covered


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
