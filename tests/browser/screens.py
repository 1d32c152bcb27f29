"""Regenerate docs/screenshots/: one PNG per state of the page at the phone size (390x844,
touch), from the real service, as a patient sees them (the screen, not the whole page):

    start.png         the start page with its suggestions
    answer.png        an answer with its source chip and the conversation bar
    emergency.png     the emergency alert with its call buttons
    not-covered.png   a question the cards do not cover, with suggestions as questions
    card-panel.png    a cited card open over the page
    text-large.png    the start page after "A+ Letra maior"

    make screenshots     (or: .venv/bin/python -m tests.browser.screens [output directory])

Ingests the bundled corpus into a temporary directory and starts its own service.
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.browser.helpers import CHEST_PAIN, FIRST_TURN, NOT_COVERED, ask, load_ready
from tests.browser.pages import PHONE
from tests.browser.screenshot import served_browser
from tests.service import ROOT

STATES = ("start", "answer", "emergency", "not-covered", "card-panel", "text-large")


def fresh_page(browser: Browser, url: str) -> Page:
    context = browser.new_context(
        viewport=PHONE, locale="pt-BR", device_scale_factor=1, has_touch=True
    )
    page = context.new_page()
    load_ready(page, lambda: page.goto(url + "/"))
    return page


def to_answer(page: Page) -> None:
    """Scroll the answer's top (its heading and the echo of the question) to just under
    the sticky conversation bar, or to the top of the screen when there is no bar."""
    page.evaluate(
        """() => {
          const bar = document.getElementById("conversation");
          const above = bar.hidden ? 0 : bar.offsetHeight;
          window.scrollTo(0, document.getElementById("answer").offsetTop - above - 12);
        }"""
    )


def shoot(page: Page, out: Path, name: str) -> None:
    page.mouse.move(0, 0)  # no hover effect in the picture
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.screenshot(path=str(out / f"{name}.png"), animations="disabled", caret="hide")
    print(f"wrote {out / f'{name}.png'}")


def shoot_all(browser: Browser, url: str, out: Path) -> None:
    page = fresh_page(browser, url)
    expect(page.locator("#suggestions")).to_be_visible()
    shoot(page, out, "start")

    ask(page, FIRST_TURN, expect_state="answered")
    to_answer(page)
    shoot(page, out, "answer")

    page.locator("#answer-body .chip").first.click()
    expect(page.locator("#card-panel .card-text p").first).to_be_visible()
    shoot(page, out, "card-panel")
    page.keyboard.press("Escape")
    expect(page.locator("#card-panel")).to_be_hidden()
    page.context.close()

    page = fresh_page(browser, url)
    ask(page, CHEST_PAIN, expect_state=("answered", "refused"))
    expect(page.locator("#answer .alert")).to_be_visible()
    to_answer(page)
    shoot(page, out, "emergency")
    page.context.close()

    page = fresh_page(browser, url)
    ask(page, NOT_COVERED, expect_state="refused")
    expect(page.locator("#answer .covered .suggestion").first).to_be_visible()
    to_answer(page)
    shoot(page, out, "not-covered")
    page.context.close()

    page = fresh_page(browser, url)
    page.get_by_role("button", name="Letra maior").click()
    expect(page.locator("html")).to_have_class("text-large")
    shoot(page, out, "text-large")
    page.context.close()


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "docs" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    with served_browser("screens-") as (browser, url):
        shoot_all(browser, url, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
