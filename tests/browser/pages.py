"""Chromium for the tests, and pages opened the way every test opens them: with the strict
Content-Security-Policy the API is expected to add later, and with uncaught errors,
JavaScript dialogs and CSP violations recorded."""

from __future__ import annotations

import os
import shutil
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Dialog, Page, Route, ViewportSize

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}

# What the page must already work under (see the report to the API owner).
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


def require_chromium() -> str:
    path = shutil.which(CHROMIUM) or (CHROMIUM if os.access(CHROMIUM, os.X_OK) else None)
    if not path:
        raise RuntimeError(
            f"Chromium not found at {CHROMIUM}: the browser tests need Debian's chromium. "
            "Install it with `apt-get install -y chromium` (or set CHROMIUM_PATH). "
            "Do not run `playwright install`."
        )
    return path


class PageProblems:
    """What went wrong in the page that the test itself did not look for."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.csp: list[str] = []


def open_page(
    browser: Browser,
    url: str,
    problems: PageProblems,
    viewport: ViewportSize = DESKTOP,
    **context_args: Any,
) -> tuple[BrowserContext, Page]:
    """A fresh context and page at `url`, with the CSP header added to the HTML."""
    context = browser.new_context(viewport=viewport, locale="pt-BR", **context_args)
    page = context.new_page()

    def with_csp(route: Route) -> None:
        response = route.fetch()
        route.fulfill(
            response=response, headers={**response.headers, "content-security-policy": CSP}
        )

    page.route(f"{url}/", with_csp)
    page.on("pageerror", lambda exc: problems.errors.append(str(exc)))

    def on_dialog(dialog: Dialog) -> None:
        problems.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on(
        "console",
        lambda msg: (
            problems.csp.append(msg.text) if "Content Security Policy" in msg.text else None
        ),
    )
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation', (e) =>"
        " console.error('Content Security Policy violation: ' + e.violatedDirective"
        " + ' ' + e.blockedURI));"
    )
    return context, page
