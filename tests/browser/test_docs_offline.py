"""/docs works air-gapped: with every request that does not go to the service itself
aborted, the OpenAPI page renders its operations, under a CSP with scripts from 'self'."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Route, expect

from tests.browser.pages import PageProblems, open_page
from tests.service import Service

pytestmark = pytest.mark.browser


def test_docs_render_with_only_the_service_reachable(
    browser: Browser, service: Service, problems: PageProblems
) -> None:
    context, page = open_page(browser, service.url, problems)
    blocked: list[str] = []
    served: list[str] = []

    def only_the_service(route: Route) -> None:
        url = route.request.url
        if url == service.url or url.startswith(service.url + "/"):
            served.append(url)
            route.continue_()
        else:
            blocked.append(url)
            route.abort("internetdisconnected")

    context.route("**/*", only_the_service)
    try:
        response = page.goto(service.url + "/docs")
        assert response is not None and response.status == 200
        csp = response.headers["content-security-policy"]
        assert "script-src 'self';" in csp and "unsafe-inline" not in csp, csp
        assert "http" not in csp, f"the docs CSP names another origin: {csp}"
        # Operations rendered from /openapi.json by the Swagger UI bundle of the service.
        ask = page.locator(".opblock-summary-path", has_text="/api/ask").first
        expect(ask).to_be_visible(timeout=20_000)
        paths = page.locator(".opblock-summary-path").all_inner_texts()
        assert {"/api/ask", "/api/search", "/readyz"} <= {p.strip() for p in paths}, paths
        # Open one operation: its request body schema renders too.
        ask.click()
        expect(page.locator(".opblock-body").first).to_be_visible(timeout=10_000)
        version = page.evaluate("() => window.versions && window.versions.swaggerUI.version")
    finally:
        context.close()
    assert blocked == [], f"the docs page reached outside the service: {blocked}"
    assert any(u.endswith("/docs/assets/swagger-ui-bundle.js") for u in served), served
    assert any(u.endswith("/openapi.json") for u in served), served
    assert not problems.errors, problems.errors
    assert not problems.csp, f"Content-Security-Policy violations: {problems.csp}"
    print(f"\nSwagger UI {version}: {len(paths)} operations rendered, only the service reachable")
