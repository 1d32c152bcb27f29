"""What the page does with whatever the server sends: hostile text in answers, titles and
cards renders literally; JSON errors and a cut stream become an error state with a retry;
provisional chips are upgraded; the SSE parser copes with any chunking. The page is the
real one on the real service; only the responses named in each test are replaced."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, Route, expect

from tests.browser.helpers import (
    all_requests,
    ask,
    citation,
    final,
    fulfill_sse,
    settle,
    sse,
    wait_done,
)
from tests.browser.pages import PageProblems

pytestmark = pytest.mark.browser

XSS = '<img src=x onerror="alert(1)"><script>alert(2)</script><b>negrito</b>'


def test_hostile_server_text_is_rendered_literally(page: Page, problems: PageProblems) -> None:
    requests = all_requests(page)
    title = f"Título {XSS}"
    answer = f"Primeiro {XSS} parágrafo. [cite:card-001]\n\nSegundo parágrafo.[cite: card-002 ]"
    page.route(
        "**/api/ask/stream",
        fulfill_sse(
            sse(
                ("delta", {"text": "Primeiro "}),
                ("delta", {"text": f"{XSS} "}),
                ("delta", {"text": "parágrafo. "}),
                ("delta", {"text": "[cite:card-001]\n"}),  # the blank line spans two deltas
                ("delta", {"text": "\nSegundo parágrafo."}),
                ("delta", {"text": "[cite: card-002 ]"}),  # spaces inside the marker
                ("final", final(answer, [citation("card-001", title), citation("card-002", "B")])),
            )
        ),
    )
    card = {
        "id": "card-001",
        "title": title,
        "text": f'Texto {XSS}\n\n<a href="javascript:alert(3)">link</a>',
        "source": f"Fonte {XSS}",
        "license": "<i>CC</i>",
        "accessed_at": "2026-05-20",
        "topics": ["<u>tema</u>"],
    }
    page.route(
        "**/api/cards/card-001",
        lambda route: route.fulfill(status=200, json=card),
    )
    ask(page, "pergunta qualquer", expect_state="answered")

    body = page.locator("#answer-body")
    expect(body.locator("p")).to_have_count(2)
    expect(body.locator("p").first).to_contain_text(f"Primeiro {XSS} parágrafo.")
    chips = body.locator(".chip")
    expect(chips).to_have_count(2)
    expect(chips.first.locator(".chip__label")).to_have_text(title)

    chips.first.click()
    panel = page.get_by_role("dialog")
    expect(panel.locator(".card-text p")).to_have_count(2)
    expect(panel.locator(".card-text p").first).to_have_text(f"Texto {XSS}")
    link = '<a href="javascript:alert(3)">link</a>'
    expect(panel.locator(".card-text p").nth(1)).to_have_text(link)
    expect(panel.locator(".panel__title")).to_have_text(title)
    expect(panel.locator(".card-meta")).to_contain_text(f"Fonte {XSS}")
    expect(panel.locator(".card-meta")).to_contain_text("<i>CC</i>")
    expect(panel.locator(".topic")).to_have_text("<u>tema</u>")

    for tag in ("img", "b", "i", "u", "a[href^=javascript]"):
        assert page.locator(f"#answer {tag}, #card-panel {tag}").count() == 0, tag
    assert page.locator("script:not([src])").count() == 0
    # An <img src=x onerror=...> that was ever parsed would have requested /x first.
    settle(page)
    assert [r.url for r in requests if r.url.endswith("/x")] == []
    assert problems.dialogs == []


def test_json_error_shows_server_message_and_retry(page: Page) -> None:
    message = "no active index: run ingest"
    calls: list[int] = []

    def handler(route: Route) -> None:
        calls.append(1)
        if len(calls) == 1:
            route.fulfill(
                status=503,
                json={"error": {"code": "index_not_ready", "message": message}},
            )
        else:
            route.continue_()

    page.route("**/api/ask/stream", handler)
    ask(page, "devo tomar a levotiroxina em jejum?", expect_state="error")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Não foi possível obter a resposta")
    expect(alert).to_contain_text("(503)")
    expect(alert).to_contain_text(message)
    retry = page.get_by_role("button", name="Tentar de novo")
    expect(retry).to_be_focused()
    expect(page.locator("#history-list")).to_contain_text("sem resposta")
    # The question is kept in the box so that it can be edited.
    expect(page.get_by_label("Sua pergunta")).to_have_value("devo tomar a levotiroxina em jejum?")

    retry.click()
    wait_done(page, "answered")
    expect(page.get_by_role("alert")).to_have_count(0)
    expect(page.locator("#answer-body .chip").first).to_be_visible()
    assert len(calls) == 2


def test_non_json_error_still_explained(page: Page) -> None:
    page.route(
        "**/api/ask/stream",
        lambda route: route.fulfill(
            status=502, content_type="text/html", body="<h1>Bad gateway</h1>"
        ),
    )
    ask(page, "qualquer coisa", expect_state="error")
    expect(page.get_by_role("alert")).to_contain_text("(502)")
    # The server's HTML is not parsed: the page's own h1 is the only one.
    expect(page.locator("h1")).to_have_count(1)
    expect(page.locator("#answer h1")).to_have_count(0)
    expect(
        page.get_by_role("heading", level=1, name="Cartões de Saúde", exact=True)
    ).to_be_visible()


def test_cut_stream_is_an_error_not_a_half_answer(page: Page) -> None:
    page.route(
        "**/api/ask/stream",
        fulfill_sse(sse(("delta", {"text": "Uma resposta "}), ("delta", {"text": "pela metade"}))),
    )
    ask(page, "pergunta", expect_state="error")
    expect(page.get_by_role("alert")).to_contain_text("interrompida antes de terminar")
    expect(page.locator("#answer-body")).to_be_empty()
    expect(page.get_by_role("button", name="Tentar de novo")).to_be_visible()


def test_provisional_chip_is_upgraded_by_the_final_event(page: Page) -> None:
    result = page.evaluate(
        """async () => {
          const { AnswerView } = await import('/static/answer.js');
          const view = new AnswerView(document.getElementById('answer'));
          view.start('pergunta');
          view.append('Tome em jejum. ');
          view.append('[cite:card-001]');
          const chip = document.querySelector('#answer-body .chip');
          const before = {
            text: chip.textContent,
            provisional: chip.classList.contains('chip--provisional'),
            busy: document.getElementById('answer-body').getAttribute('aria-busy'),
          };
          view.finish({answer: 'Tome em jejum. [cite:card-001]', refused: false, emergency: null,
                       citations: [{id: 'card-001', title: 'Levotiroxina'}], retrieval: [],
                       citation_warnings: [], generator: 'extractive'});
          const same = chip === document.querySelector('#answer-body .chip');
          return {before, same, after: chip.textContent,
                  provisional: chip.classList.contains('chip--provisional')};
        }"""
    )
    assert result["before"] == {"text": "Fonte: card-001", "provisional": True, "busy": "true"}
    assert result["same"], "the chip is upgraded in place (focus and position kept)"
    assert result["after"] == "Fonte: Levotiroxina"
    assert result["provisional"] is False


SSE_PARSER_CASES = """async (chunks) => {
  const { SSEParser } = await import('/static/sse.js');
  const parser = new SSEParser();
  const out = [];
  for (const c of chunks) out.push(...parser.feed(c));
  return out;
}"""

STREAM = (
    ": comment\r\n"
    'event: delta\r\ndata: {"text": "olá"}\r\n\r\n'
    'event: delta\ndata:{"text": "a\\nb"}\n\n'
    "data: linha 1\ndata: linha 2\n\n"
    "event: final\rdata: {}\r\r"
    "event: ignored-no-data\n\n"
)
EXPECTED = [
    {"event": "delta", "data": '{"text": "olá"}'},
    {"event": "delta", "data": '{"text": "a\\nb"}'},
    {"event": "message", "data": "linha 1\nlinha 2"},
    {"event": "final", "data": "{}"},
]


def test_sse_parser_any_chunking(page: Page) -> None:
    assert page.evaluate(SSE_PARSER_CASES, [STREAM]) == EXPECTED
    for cut in range(1, len(STREAM)):
        got = page.evaluate(SSE_PARSER_CASES, [STREAM[:cut], STREAM[cut:]])
        assert got == EXPECTED, f"split at {cut}: {STREAM[:cut]!r}"
    assert page.evaluate(SSE_PARSER_CASES, list(STREAM)) == EXPECTED


def test_sse_reader_utf8_split_across_chunks(page: Page) -> None:
    events = page.evaluate(
        """async (text) => {
          const { readEvents } = await import('/static/sse.js');
          const bytes = new TextEncoder().encode(text);
          const stream = new ReadableStream({
            start(c) { for (const b of bytes) c.enqueue(new Uint8Array([b])); c.close(); },
          });
          const out = [];
          for await (const e of readEvents(stream)) out.push(e);
          return out;
        }""",
        'event: delta\ndata: {"text": "coração, ação, 💊"}\n\n',
    )
    assert events == [{"event": "delta", "data": '{"text": "coração, ação, 💊"}'}]
    assert json.loads(events[0]["data"])["text"] == "coração, ação, 💊"
