"""The API goes away under a loaded page: the page says so and offers a retry, and the
retry works once the API is back. This module has its own service instance (the
module-scoped `service` fixture), which this test stops and starts again."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import LEVO, ask, wait_done
from tests.service import Service

pytestmark = pytest.mark.browser


def test_service_down_then_retry(page: Page, service: Service) -> None:
    ask(page, LEVO, expect_state="answered")  # the page works while the API is up

    service.stop()
    ask(page, LEVO, expect_state="error")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Não foi possível obter a resposta")
    expect(alert).to_contain_text("Não foi possível falar com o serviço")
    retry = page.get_by_role("button", name="Tentar de novo")
    expect(retry).to_be_focused()
    expect(page.get_by_label("Sua pergunta")).to_be_enabled()

    service.start()
    retry.click()
    wait_done(page, "answered")
    expect(page.get_by_role("alert")).to_have_count(0)
    expect(page.locator('#answer-body .chip[data-card="card-001"]').first).to_contain_text(
        "Levotiroxina"
    )
