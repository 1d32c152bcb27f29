"""The page's source, checked without a browser: ready for a strict Content-Security-Policy
(no inline script, style or event handler) and no HTML parsing of text anywhere."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "app" / "web"


class Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.inline_script = False
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.inline_script = True


def parsed() -> Collect:
    parser = Collect()
    parser.feed((WEB / "index.html").read_text(encoding="utf-8"))
    return parser


def test_index_is_csp_ready() -> None:
    page = parsed()
    assert not page.inline_script
    assert not [t for t in page.tags if t[0] == "style"]
    for tag, attrs in page.tags:
        assert "style" not in attrs, f"<{tag} style=...>"
        handlers = [a for a in attrs if a.startswith("on")]
        assert not handlers, f"<{tag}> has inline handlers {handlers}"
        for name in ("href", "src", "action"):
            assert not (attrs.get(name) or "").lower().startswith("javascript:"), tag
    scripts = [a for t, a in page.tags if t == "script"]
    assert scripts == [{"type": "module", "src": "/static/app.js"}]
    sheets = [a["href"] for t, a in page.tags if t == "link" and a.get("rel") == "stylesheet"]
    assert sheets == ["/static/style.css"]
    html = [a for t, a in page.tags if t == "html"][0]
    assert html.get("lang") == "pt-BR"


def test_every_module_exists_and_none_parses_html() -> None:
    modules = sorted(WEB.glob("*.js"))
    assert modules
    imports = set()
    for module in modules:
        source = module.read_text(encoding="utf-8")
        for bad in (
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
            "new Function",
            "DOMParser",
            "createContextualFragment",
            ".style.",
        ):
            assert bad not in source, f"{module.name} uses {bad}"
        imports.update(re.findall(r'from "\./([\w-]+\.js)"', source))
    assert imports <= {m.name for m in modules}, imports - {m.name for m in modules}
