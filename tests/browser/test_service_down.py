"""The API goes away under a loaded page: the page says so and offers a retry, and the
retry works once the API is back. The page talks to the real service through a relay
(tests/browser/relay.py) that this test closes, so the browser's connections are refused
and cut as they are when the service is down, then opens again."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import LEVO, ask, wait_done
from tests.browser.relay import Relay

pytestmark = pytest.mark.browser


def test_service_down_then_retry(relayed_page: Page, relay: Relay) -> None:
    page = relayed_page
    ask(page, LEVO, expect_state="answered")  # the page works while the API is up

    relay.close()
    ask(page, LEVO, expect_state="error")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Não foi possível obter a resposta")
    expect(alert).to_contain_text("Não foi possível falar com o serviço")
    retry = page.get_by_role("button", name="Tentar de novo")
    expect(retry).to_be_focused()
    expect(page.get_by_label("Sua pergunta")).to_be_enabled()

    relay.open()
    retry.click()
    wait_done(page, "answered")
    expect(page.get_by_role("alert")).to_have_count(0)
    expect(page.locator('#answer-body .chip[data-card="card-001"]').first).to_contain_text(
        "Levotiroxina"
    )
