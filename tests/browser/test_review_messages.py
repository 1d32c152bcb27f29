"""What the page says, from the patient review (issue 16, item 5), on the desktop screen
(1280x800) and the phone screen (390x844, touch): errors in plain Portuguese with the
technical text kept under details, long text never cut silently, technical details in
plain words, and the contract's decision, not-covered suggestions and answer id. The page
and service are real; only the responses named in a test are replaced.

Every error case is checked on both screens, one page per screen: the cases run one after
the other in the same page (each replaces the previous error), which keeps every check
while sparing a browser context per case. Checks that do not depend on the screen size
(robustness to odd data, what is kept in the tab) run on the desktop screen only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, Route, expect

from tests.browser.helpers import (
    LEVO,
    api_requests,
    ask,
    citation,
    final,
    fulfill_sse,
    is_phone,
    page_fits,
    reload_ready,
    settle,
    sse,
    wait_done,
)

pytestmark = pytest.mark.browser

ANSWER_ID = "0123456789abcdef0123456789abcdef"

# (code, HTTP status, extra headers, the server's English text, what the patient reads)
HTTP_ERRORS = [
    (
        "invalid_request",
        422,
        {},
        "question: must be 1-2000 characters after trimming, got 0",
        "Confira se ela tem entre 1 e 2.000 caracteres",
    ),
    ("payload_too_large", 413, {}, "request body over 65536 bytes", "grande demais para enviar"),
    (
        "unsupported_media_type",
        415,
        {},
        "send the body as JSON with content-type: application/json",
        "não entendeu o formato do envio",
    ),
    ("unauthorized", 401, {}, "missing or wrong X-API-Key header", "pede uma chave de acesso"),
    (
        "rate_limited",
        429,
        {"Retry-After": "17"},
        "too many requests; retry after 17 s",
        "Muitas perguntas em pouco tempo. Espere 17 segundos e tente de novo.",
    ),
    ("store_unavailable", 503, {}, "chroma unreachable at chroma:8000", "fora do ar no momento"),
    ("store_error", 503, {}, "write failed", "teve um problema ao responder"),
    ("index_not_ready", 503, {}, "no active index: run ingest", "ainda está sendo preparada"),
    ("not_found", 404, {}, "Not Found", "não encontrou o que a página pediu"),
    ("internal_error", 500, {}, "internal error; see the server log", "erro inesperado no serviço"),
    ("teapot", 418, {}, "I'm a teapot", "Não foi possível obter a resposta agora"),
]


def check_error_shown(page: Page, plain: str, technical: str) -> None:
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Não foi possível obter a resposta")
    # What is on screen is the Portuguese explanation, in the page's normal font...
    expect(alert.locator(".notice__text")).to_contain_text(plain)
    font = alert.locator(".notice__text").evaluate("(p) => getComputedStyle(p).fontFamily")
    assert "mono" not in font.lower(), font
    assert technical not in alert.inner_text()
    # ...and the technical text is kept, closed, under "Detalhes técnicos".
    details = alert.locator("details")
    expect(details).not_to_have_attribute("open", "")
    details.get_by_text("Detalhes técnicos").click()
    expect(details.get_by_text(technical, exact=False)).to_be_visible()
    expect(page.locator("#status")).to_have_text("Não foi possível obter a resposta.")
    expect(page.get_by_role("button", name="Tentar de novo")).to_be_visible()
    assert page_fits(page)


def fulfill_error(
    status: int, headers: dict[str, str], body: dict[str, Any]
) -> Callable[[Route], None]:
    """A route handler answering with an error status and a JSON body."""

    def handler(route: Route) -> None:
        route.fulfill(status=status, headers=headers, json=body)

    return handler


def test_error_codes_are_explained_in_portuguese(screen: Page) -> None:
    page = screen
    for code, status, headers, technical, plain in HTTP_ERRORS:
        page.unroute("**/api/ask/stream")
        page.route(
            "**/api/ask/stream",
            fulfill_error(status, headers, {"error": {"code": code, "message": technical}}),
        )
        ask(page, LEVO, expect_state="error")
        check_error_shown(page, plain, technical)
        expect(page.get_by_role("alert")).to_contain_text(f"({status})")


PROXY_PAGES = [
    (502, "<h1>502 Bad Gateway</h1>", "fora do ar ou sobrecarregado"),
    (413, "<h1>413 Request Entity Too Large</h1>", "grande demais para enviar"),
]


def test_proxy_error_pages_are_explained_by_status(screen: Page) -> None:
    page = screen
    for status, body, plain in PROXY_PAGES:
        page.unroute("**/api/ask/stream")
        page.route(
            "**/api/ask/stream",
            fulfill_html(status, body),
        )
        ask(page, LEVO, expect_state="error")
        check_error_shown(page, plain, f"Resposta HTTP ({status})")
        expect(page.locator("#answer h1")).to_have_count(0)


def fulfill_html(status: int, body: str) -> Callable[[Route], None]:
    """A route handler answering like a proxy's own error page."""

    def handler(route: Route) -> None:
        route.fulfill(status=status, content_type="text/html", body=body)

    return handler


def test_network_failure_is_explained_in_portuguese(screen: Page) -> None:
    page = screen
    page.route("**/api/ask/stream", lambda route: route.abort("internetdisconnected"))
    ask(page, LEVO, expect_state="error")
    check_error_shown(page, "Verifique sua conexão com a internet", "Falha de rede")


def test_error_in_the_stream_is_explained_in_portuguese(screen: Page) -> None:
    page = screen
    body = sse(("error", {"error": {"code": "internal_error", "message": "generator crashed"}}))
    page.route("**/api/ask/stream", fulfill_sse(body))
    ask(page, LEVO, expect_state="error")
    check_error_shown(page, "erro inesperado no serviço", "generator crashed")


def test_long_text_is_never_cut_silently(screen: Page) -> None:
    page = screen
    requests = api_requests(page)
    box = page.get_by_label("Sua pergunta")
    counter = page.locator("#question-count")
    expect(counter).to_have_text("0 de 2.000 caracteres")
    sentence = "Tomo levotiroxina cedo e tomo café logo depois, isso atrapalha o remédio? "
    text = (sentence * 40)[:2150]
    box.fill(text)  # as a paste would put it there
    expect(box).to_have_value(text)  # nothing was cut
    expect(counter).to_have_text("2.150 de 2.000 caracteres: 150 a mais")
    warning = page.locator("#question-error")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("limite de 2.000 caracteres")
    expect(warning).to_contain_text("nada foi cortado")
    box.press("Enter")
    page.get_by_role("button", name="Perguntar").click()
    expect(box).to_be_focused()
    settle(page)
    assert requests == []
    expect(page.locator("#answer")).to_be_hidden()

    question = text[:1900].strip()
    box.fill(question)
    expect(warning).to_be_hidden()
    expect(counter).to_have_text(f"{len(question):,} de 2.000 caracteres".replace(",", "."))
    box.press("Enter")
    wait_done(page)
    sent = [r for r in requests if r.url.endswith("/api/ask/stream")]
    assert sent[0].post_data_json == {"question": question}

    # The echo is shortened; the whole question is one tap away.
    asked = page.locator("#asked-text")
    shown = asked.inner_text()
    assert shown.endswith("…") and len(shown) <= 201, shown
    assert question.startswith(shown[:-1]), shown
    more = page.get_by_role("button", name="Mostrar a pergunta inteira")
    expect(more).to_have_attribute("aria-expanded", "false")
    more.click()
    expect(asked).to_have_text(question)
    less = page.get_by_role("button", name="Mostrar menos")
    expect(less).to_have_attribute("aria-expanded", "true")
    assert page_fits(page)
    less.click()
    expect(asked).to_have_text(shown)
    # A short question has no such button.
    ask(page, LEVO, expect_state="answered")
    expect(asked).to_have_text(LEVO)
    expect(page.locator("#asked-more")).to_be_hidden()


def test_technical_details_use_plain_words(screen: Page) -> None:
    page = screen
    ask(page, LEVO, expect_state="answered")  # the real service's response
    details = page.locator("#answer-extra details")
    details.get_by_text("Detalhes técnicos").click()
    expect(details).to_contain_text("Como a resposta foi montada")
    expect(details).to_contain_text("frases copiadas dos cartões")
    expect(details).to_contain_text("Cartões consultados")
    expect(details).to_contain_text("card-001")
    text = details.inner_text()
    for internal in ("Gerador", "extractive", "Cartões recuperados"):
        assert internal not in text, internal
    assert page_fits(page)


def answered(page: Page, **extra: Any) -> None:
    """Answer the next question with a fixed final object (plus `extra` fields)."""
    answer = "Tome em jejum, com água. [cite:card-001]"
    result = final(answer, [citation("card-001", "Levotiroxina: como e quando tomar")], **extra)
    page.route(
        "**/api/ask/stream",
        fulfill_sse(sse(("delta", {"text": answer}), ("final", result))),
    )


def test_decision_is_shown_to_support_in_plain_words(screen: Page) -> None:
    page = screen
    decision: dict[str, Any] = {
        "outcome": "answer",
        "reason": "A pergunta cita a levotiroxina e o cartão dela responde sobre o jejum.",
        "signals": {
            "p_covered": 0.937,
            "threshold": 0.2664,
            "top_sim": 0.8123,
            "names": ["<b>levotiroxina</b>"],
            "emergency": {"concepts": [], "p": {"none": 0.9, "medical": 0.06}},
            "coverage_top": 1.0,
            "rule": {"nested": True},
        },
    }
    answered(page, decision=decision, topic="levotiroxina", answer_id=ANSWER_ID)
    ask(page, "e com café?", expect_state="answered")
    details = page.locator("#answer-extra details")
    details.get_by_text("Detalhes técnicos").click()
    expect(details).to_contain_text("Decisão")
    expect(details).to_contain_text("respondida com os cartões")
    expect(details).to_contain_text("Por que foi respondida")
    expect(details).to_contain_text(decision["reason"])
    # The signals in Portuguese (issue 27): the known ones in words, the others counted,
    # never a key or an object as the service wrote it.
    signals = details.locator(".details__signals li")
    expect(signals).to_have_text(
        [
            "chance de os cartões cobrirem a pergunta: 94% (mínimo para responder: 27%)",
            "semelhança do cartão mais próximo, na decisão: 0,81",
            "medicamentos reconhecidos na pergunta: <b>levotiroxina</b>",
            "chance de emergência: emergência médica 6%",
            "mais 2 sinais internos, não mostrados aqui (estão na resposta da API)",
        ]
    )
    text = details.inner_text()
    for raw in ("[object Object]", "top_sim", "coverage_top", "rule", "nested"):
        assert raw not in text, raw
    expect(details.locator("b")).to_have_count(0)
    expect(details).to_contain_text("Assunto assumido")
    expect(details).to_contain_text(ANSWER_ID)
    assert page_fits(page)


@pytest.mark.parametrize("decision", [None, "answer", ["x"], {"outcome": 3}], ids=repr)
def test_missing_or_odd_decision_does_not_break_the_answer(page: Page, decision: Any) -> None:
    extra = {} if decision is None else {"decision": decision}
    answered(page, **extra)
    ask(page, "como tomar a levotiroxina?", expect_state="answered")
    expect(page.locator('#answer-body .chip[data-card="card-001"]')).to_have_text(
        "Fonte: Levotiroxina: como e quando tomar"
    )
    details = page.locator("#answer-extra details")
    details.get_by_text("Detalhes técnicos").click()
    expect(details).to_contain_text("Como a resposta foi montada")
    expect(details).not_to_contain_text("Motivo")


def test_not_covered_answer_offers_covered_questions(screen: Page) -> None:
    page = screen
    not_covered = (
        "A base não tem cartão sobre ozempic. Pergunte ao seu farmacêutico ou ao seu médico."
    )
    suggestions = [
        {"id": "card-001", "title": "Levotiroxina: como e quando tomar", "question": LEVO},
        {"id": "card-019", "title": "Omeprazol", "question": "Como tomar o omeprazol?"},
        {"id": "card-x", "title": "sem pergunta"},  # not usable: no question
    ]
    result = {
        **final(not_covered, []),
        "refused": True,
        "generator": "none",
        "decision": {
            "outcome": "not_covered",
            "reason": "Ozempic não aparece em nenhum cartão.",
            "signals": {"uncovered": ["ozempic"]},
        },
        "uncovered_terms": ["ozempic"],
        "suggestions": suggestions,
    }
    sent: list[Any] = []
    held: list[Route] = []

    def handler(route: Route) -> None:
        sent.append(route.request.post_data_json)
        if len(sent) == 1:
            route.fulfill(
                status=200,
                content_type="text/event-stream",
                body=sse(("delta", {"text": not_covered}), ("final", result)).encode(),
            )
        else:
            held.append(route)  # the suggestion goes to the real service, once checked

    page.route("**/api/ask/stream", handler)
    ask(page, "posso tomar ozempic?", expect_state="refused")
    box = page.locator(".notice--refused")
    expect(box).to_have_count(1)
    expect(box).to_contain_text("A base não cobre essa pergunta")
    expect(box.locator("#answer-body")).to_have_text(not_covered)
    buttons = box.get_by_role("button")
    expect(buttons).to_have_text([LEVO, "Como tomar o omeprazol?"])
    for button in buttons.all():
        size = button.bounding_box()
        assert size and size["height"] >= 44
    assert page_fits(page)
    details = page.locator("#answer-extra details")
    details.get_by_text("Detalhes técnicos").click()
    expect(details).to_contain_text("fora do que os cartões cobrem")
    expect(details).to_contain_text("Ozempic não aparece em nenhum cartão.")
    expect(details).to_contain_text("Termos sem cartão na base")

    buttons.first.click()
    expect(page.locator("#answer")).to_have_attribute("data-state", "loading")
    expect(page.get_by_label("Sua pergunta")).to_have_value(LEVO)  # filled while it is asked
    assert sent[1] == {"question": LEVO}
    held[0].continue_()
    wait_done(page, "answered")
    expect(page.locator("#asked-text")).to_have_text(LEVO)
    expect(page.locator(".notice--refused")).to_have_count(0)
    expect(page.locator('#answer-body .chip[data-card="card-001"]').first).to_have_text(
        "Fonte: Levotiroxina: como e quando tomar"
    )
    if is_phone(page):
        expect(page.locator("#answer-title")).to_be_focused()


def test_answer_id_is_kept_in_the_session(page: Page) -> None:
    answered(page, answer_id=ANSWER_ID)
    ask(page, "como tomar a levotiroxina?", expect_state="answered")
    stored = page.evaluate("JSON.parse(sessionStorage.getItem('cartoes.conversa.v1'))")
    assert stored[0]["answerId"] == ANSWER_ID
    assert stored[0]["question"] == "como tomar a levotiroxina?"
    page.unroute("**/api/ask/stream")
    reload_ready(page)
    wait_done(page, "answered")
    details = page.locator("#answer-extra details")
    details.get_by_text("Detalhes técnicos").click()
    expect(details).to_contain_text(ANSWER_ID)
