"""Regenerate docs/screenshot.png from the real service: a follow-up answer (the topic the
service assumed, its citation chips, the feedback buttons after "Ajudou") with its cited
card open beside it, at desktop size.

    .venv/bin/python -m tests.browser.screenshot [output.png] [--phone]

Ingests the bundled corpus into a temporary directory and starts its own service.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, expect, sync_playwright

from tests.browser.helpers import FIRST_TURN, FOLLOW_UP, ask
from tests.browser.pages import CHROMIUM_ARGS, DESKTOP, PHONE, require_chromium
from tests.service import ROOT, Service, ingest, service_env


@contextmanager
def served_browser(prefix: str) -> Iterator[tuple[Browser, str]]:
    """Debian's Chromium and the real service over a temporary ingest of the bundled corpus:
    (browser, service url). Raises SystemExit(1) when the ingest fails."""
    executable = require_chromium()
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        chroma = Path(tmp) / "chroma"
        result = ingest(service_env(chroma))
        if result.returncode != 0:
            print(result.stdout, result.stderr, file=sys.stderr)
            raise SystemExit(1)
        service = Service(chroma)
        service.start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
                try:
                    yield browser, service.url
                finally:
                    browser.close()
        finally:
            service.stop()


def main(argv: list[str]) -> int:
    phone = "--phone" in argv
    paths = [a for a in argv if not a.startswith("--")]
    out = Path(paths[0]) if paths else ROOT / "docs" / "screenshot.png"
    with served_browser("screenshot-") as (browser, url):
        page = browser.new_page(
            viewport=PHONE if phone else DESKTOP, locale="pt-BR", device_scale_factor=1
        )
        page.goto(url + "/")
        ask(page, FIRST_TURN, expect_state="answered")
        ask(page, FOLLOW_UP, expect_state="answered")
        expect(page.locator("#answer-body .answer__topic")).to_be_visible()
        feedback = page.get_by_role("group", name="Esta resposta ajudou?")
        feedback.get_by_role("button", name="Ajudou", exact=True).click()
        expect(feedback.get_by_role("status")).to_have_text("Obrigado pela avaliação.")
        if not phone:
            page.locator("#answer-body .chip").first.click()
            expect(page.locator("#card-panel .card-text p").first).to_be_visible()
        # From the question box (with the conversation bar) to the feedback.
        page.evaluate("window.scrollTo(0, document.getElementById('ask-form').offsetTop - 12)")
        page.mouse.move(0, 0)  # no hover effect in the picture
        out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
