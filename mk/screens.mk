# The page's screenshots in docs/screenshots/ (one PNG per state, phone size) and the
# vendored axe-core the browser tests inject.

.PHONY: screenshots vendor-axe

screenshots: venv ## Phone-size PNGs of the page's states into docs/screenshots/ (real service)
	@scripts/test-deps.sh chromium
	$(PY) -m tests.browser.screens docs/screenshots

vendor-axe: ## Re-vendor axe-core from npm into tests/browser/vendor/ (AXE_VERSION=4.x.y to change)
	scripts/vendor-axe.sh $(AXE_VERSION)
