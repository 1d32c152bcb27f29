"""Small helpers shared by the browser tests."""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, Request, Response, Route, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

LEVO = "devo tomar a levotiroxina com o estômago vazio?"
OUT_OF_SCOPE = "qual a capital da Austrália?"
CHEST_PAIN = "estou com dor no peito que vai para o braço"
SELF_HARM = "não quero mais viver"
POISONING = "meu filho de 2 anos engoliu uns comprimidos da avó agora"
NOT_COVERED = "posso tomar ozempic?"
HTML_QUESTION = "<img src=x onerror=alert(1)> como guardar insulina?"
# A conversation: the follow-up names no medicine of its own.
FIRST_TURN = "devo tomar a levotiroxina em jejum?"
FOLLOW_UP = "e se eu tomar com café?"

DONE = ("answered", "refused")


READY = "html[data-ready='true']"


def _load_once(page: Page, navigate: Callable[[], Any], timeout_ms: float) -> str:
    """Navigate and wait for app.js to have run to its end; "" when it did, else what went
    wrong on the way (failed requests, error responses, page errors)."""
    failed: list[str] = []
    errors: list[str] = []

    def on_failed(r: Request) -> None:
        failed.append(f"{r.method} {r.url}: {r.failure}")

    def on_response(r: Response) -> None:
        if r.status >= 400:
            failed.append(f"{r.request.method} {r.url}: HTTP {r.status}")

    def on_error(exc: Exception) -> None:
        errors.append(str(exc))

    page.on("requestfailed", on_failed)
    page.on("response", on_response)
    page.on("pageerror", on_error)
    try:
        navigate()
        page.wait_for_selector(READY, state="attached", timeout=timeout_ms)
        return ""
    except PlaywrightTimeout as exc:
        return f"{exc}; failed requests: {failed or 'none'}; page errors: {errors or 'none'}"
    finally:
        page.remove_listener("requestfailed", on_failed)
        page.remove_listener("response", on_response)
        page.remove_listener("pageerror", on_error)


def load_ready(
    page: Page,
    navigate: Callable[[], Any],
    logs: Callable[[], str] = lambda: "",
    timeout_ms: float = 15_000,
) -> None:
    """Navigate (page.reload, a goto) and wait until the page is ready (every listener
    attached).

    A page error, or a page that is not ready although every request succeeded, fails at
    once, with what was seen. A request that failed on the way (the network, or the service
    answering 5xx) is reported as a warning and the navigation is tried once more: a patient
    would reload too, and the second one must work."""
    problem = _load_once(page, navigate, timeout_ms)
    if not problem:
        return
    if "page errors: none" in problem and "failed requests: none" not in problem:
        warnings.warn(f"page load failed once, tried again: {problem}", stacklevel=2)
        problem = _load_once(page, navigate, timeout_ms)
        if not problem:
            return
    raise AssertionError(f"the page was not ready: {problem}\nservice log:\n{logs()}")


def reload_ready(
    page: Page, logs: Callable[[], str] = lambda: "", timeout_ms: float = 15_000
) -> None:
    """Reload the page and wait until it is ready (load_ready)."""
    load_ready(page, page.reload, logs, timeout_ms)


def ask(page: Page, question: str, *, expect_state: str | tuple[str, ...] = DONE) -> None:
    """Type a question, press Enter and wait until the page has finished with it."""
    box = page.get_by_label("Sua pergunta")
    box.fill(question)
    box.press("Enter")
    wait_done(page, expect_state)


def wait_done(page: Page, expect_state: str | tuple[str, ...] = DONE) -> None:
    """Wait until the answer is in one of `expect_state`; a timeout says what the page
    showed instead (its state, status line and answer text), so a red run names the cause:
    a page that never sent the question, a slow answer, an error box or another state."""
    states = (expect_state,) if isinstance(expect_state, str) else expect_state
    selector = ", ".join(f'#answer[data-state="{s}"]' for s in states)
    try:
        page.wait_for_selector(selector, timeout=30_000)
    except PlaywrightTimeout as exc:
        seen = page.evaluate(
            """() => {
              const a = document.getElementById("answer");
              return {
                ready: document.documentElement.dataset.ready || null,
                state: a ? a.dataset.state || null : "no #answer",
                text: a ? a.innerText.slice(0, 400) : "",
                status: (document.querySelector("[role=status]") || {}).innerText || null,
              };
            }"""
        )
        raise AssertionError(f"the answer never reached {states}; the page showed {seen}") from exc
    expect(page.get_by_label("Sua pergunta")).to_be_enabled()


def ask_real(
    page: Page, question: str, *, expect_state: str | tuple[str, ...] = DONE
) -> dict[str, Any]:
    """Ask like `ask` and return the service's final object as the page received it (the
    page keeps it in sessionStorage; Chromium keeps no copy of a streamed fetch body)."""
    ask(page, question, expect_state=expect_state)
    stored = page.evaluate("JSON.parse(sessionStorage.getItem('cartoes.conversa.v1'))[0]")
    assert stored["question"] == question, stored
    result: dict[str, Any] = stored["result"]
    return result


def ask_bodies(requests: list[Request]) -> list[Any]:
    """The JSON bodies the page sent to /api/ask/stream, in order."""
    return [r.post_data_json for r in requests if r.url.endswith("/api/ask/stream")]


def stored_rating(
    db: Path, answer_id: str, expected: tuple[bool, str | None], timeout_s: float = 15
) -> tuple[bool, str | None]:
    """Poll the service's feedback database until the answer's rating is `expected`
    (helpful, reason); fail with what is there after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    row: tuple[Any, ...] | None = None
    while True:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as conn:
            row = conn.execute(
                "SELECT helpful, reason FROM feedback WHERE answer_id = ?", (answer_id,)
            ).fetchone()
        got = (bool(row[0]), row[1]) if row else None
        if got == expected or time.monotonic() > deadline:
            assert got == expected, f"rating of {answer_id} in {db}: {got}, expected {expected}"
            return got
        time.sleep(0.1)


def all_requests(page: Page) -> list[Request]:
    """Every request the page makes from now on."""
    seen: list[Request] = []
    page.on("request", lambda r: seen.append(r))
    return seen


def settle(page: Page) -> None:
    """Return once every request the page started so far has been reported to the test:
    the page sends a marker request and the test waits for it (a page's requests are
    reported in the order they start). Used instead of a fixed sleep before checking that
    something was NOT requested."""
    with page.expect_request("**/healthz?settle"):
        page.evaluate("fetch('/healthz?settle').catch(() => {})")


def api_requests(page: Page) -> list[Request]:
    """Every request the page makes to /api/ from now on."""
    seen: list[Request] = []
    page.on("request", lambda r: seen.append(r) if "/api/" in r.url else None)
    return seen


def sse(*events: tuple[str, Any]) -> str:
    """An event-stream body, e.g. sse(("delta", {"text": "Oi "}), ("final", {...}))."""
    return "".join(
        f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n" for name, data in events
    )


def final(answer: str, citations: list[dict[str, str]], **extra: Any) -> dict[str, Any]:
    return {
        "answer": answer,
        "citations": citations,
        "refused": False,
        "citation_warnings": [],
        "retrieval": [{"id": c["id"], "score": 0.5} for c in citations],
        "emergency": None,
        "generator": "extractive",
        **extra,
    }


def citation(card_id: str, title: str) -> dict[str, str]:
    return {
        "id": card_id,
        "title": title,
        "source": "fonte de teste",
        "license": "CC-BY-4.0",
        "accessed_at": "2026-05-20",
    }


def chip_focused(page: Page, index: int = 0) -> bool:
    return bool(
        page.evaluate(
            "(i) => document.activeElement === document.querySelectorAll('#answer-body .chip')[i]",
            index,
        )
    )


def horizontal_overflow(page: Page) -> int:
    """How many CSS pixels the page is wider than the viewport (0 when it fits)."""
    return int(
        page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    )


def page_fits(page: Page) -> bool:
    """The page does not scroll sideways (what the patient review measured)."""
    return bool(page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth"))


def is_phone(page: Page) -> bool:
    size = page.viewport_size
    return bool(size and size["width"] < 600)


def fulfill_sse(body: str) -> Callable[[Route], None]:
    """A route handler answering with an event-stream body."""

    def handler(route: Route) -> None:
        route.fulfill(status=200, content_type="text/event-stream", body=body.encode())

    return handler


def contrast(css_color: str, background: tuple[int, int, int] = (255, 255, 255)) -> float:
    """WCAG contrast ratio of an opaque computed colour ("rgb(r, g, b)") against a background."""
    values = [float(v) for v in re.findall(r"[\d.]+", css_color)]
    if len(values) == 4 and values[3] < 1:
        raise AssertionError(f"translucent colour {css_color}: contrast depends on what is behind")

    def luminance(rgb: tuple[float, ...]) -> float:
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    a = luminance(tuple(v / 255 for v in values[:3]))
    b = luminance(tuple(v / 255 for v in background))
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)
