"""Browser tests: Playwright (sync API, from PyPI) driving Debian's Chromium against the
real service (tests/service.py). Nothing here is skipped: a missing Chromium is an error
that says how to install it.

Time: one service for the whole session (a start loads the embedding model, 30-70 s on
the shared machine) and one browser; each test gets its own browser context (fresh
storage, history and routes), so tests stay independent of each other and of their order.
Tests that need the service to go away use a relay in front of it (tests/browser/relay.py).

Every page is served with the strict Content-Security-Policy the API is expected to add
later; a CSP violation, an uncaught page error or a JavaScript dialog fails the test.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, sync_playwright

from tests.browser.helpers import load_ready
from tests.browser.pages import (
    CHROMIUM_ARGS,
    DESKTOP,
    PHONE,
    PageProblems,
    open_page,
    require_chromium,
)
from tests.browser.relay import Relay
from tests.service import ROOT, Service, ingest, service_env

ARTIFACTS = ROOT / "artifacts" / "browser"


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    executable = require_chromium()
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def chroma_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled corpus ingested once into a temporary embedded Chroma."""
    path = tmp_path_factory.mktemp("browser") / "chroma"
    result = ingest(service_env(path))
    if result.returncode != 0:
        raise RuntimeError(f"ingest failed:\n{result.stdout}\n{result.stderr}")
    return path


@pytest.fixture(scope="session")
def service(chroma_path: Path) -> Iterator[Service]:
    """The real service, shared by every browser test (none changes its settings)."""
    svc = Service(chroma_path)
    svc.start()
    yield svc
    svc.stop()


@pytest.fixture(scope="session")
def feedback_db(service: Service) -> Path:
    """The SQLite file the service stores answers and ratings in (FEEDBACK_DATABASE_URL)."""
    url = service.env["FEEDBACK_DATABASE_URL"]
    assert url.startswith("sqlite:///"), url
    return Path(url.removeprefix("sqlite:///"))


@pytest.fixture
def relay(service: Service) -> Iterator[Relay]:
    """An address for the service that a test can take down and bring back."""
    r = Relay(service.port)
    r.open()
    yield r
    r.shutdown()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Remember each phase's report on the item, for the failure screenshot."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


@pytest.fixture
def problems() -> PageProblems:
    return PageProblems()


def _checked_page(
    browser: Browser,
    url: str,
    problems: PageProblems,
    request: pytest.FixtureRequest,
    artifacts: Path,
    viewport: ViewportSize,
    **context_args: Any,
) -> Iterator[Page]:
    """A page at `url` in a new context, screenshotted on failure and checked for problems."""
    context, pg = open_page(browser, url, problems, viewport=viewport, **context_args)
    # The module has run to its end (every listener attached) before a test types: a skip
    # link pressed before its listener existed navigated to #question (seen once in CI).
    # A page that is not ready says why (stop 37's CI: one first load never got ready).
    load_ready(pg, lambda: pg.goto(url + "/"))
    yield pg
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        pg.screenshot(path=str(artifacts / f"FAILED-{request.node.name}.png"), full_page=True)
    context.close()
    assert not problems.errors, f"uncaught errors in the page: {problems.errors}"
    assert not problems.dialogs, f"the page opened JavaScript dialogs: {problems.dialogs}"
    assert not problems.csp, f"Content-Security-Policy violations: {problems.csp}"


@pytest.fixture
def page(
    browser: Browser,
    service: Service,
    problems: PageProblems,
    request: pytest.FixtureRequest,
    artifacts: Path,
) -> Iterator[Page]:
    """A desktop-sized page on the running service, checked for problems at the end."""
    yield from _checked_page(browser, service.url, problems, request, artifacts, DESKTOP)


@pytest.fixture(params=["desktop", "phone"])
def screen(
    browser: Browser,
    service: Service,
    problems: PageProblems,
    request: pytest.FixtureRequest,
    artifacts: Path,
) -> Iterator[Page]:
    """The same page at desktop size (1280x800) and at phone size (390x844, touch, device
    scale 2)."""
    if request.param == "phone":
        yield from _checked_page(
            browser,
            service.url,
            problems,
            request,
            artifacts,
            PHONE,
            has_touch=True,
            device_scale_factor=2,
        )
    else:
        yield from _checked_page(browser, service.url, problems, request, artifacts, DESKTOP)


@pytest.fixture
def relayed_page(
    browser: Browser,
    relay: Relay,
    problems: PageProblems,
    request: pytest.FixtureRequest,
    artifacts: Path,
) -> Iterator[Page]:
    """A desktop-sized page loaded through `relay`: every request goes through it."""
    yield from _checked_page(browser, relay.url, problems, request, artifacts, DESKTOP)
