"""The layout rules of issue 26 for app/agent, checked on the source itself (ast, no
imports run):

- no module is longer than 300 lines, no function (a def or a method, from its def line to
  the last line of its body) longer than 60;
- the graph's nodes (nodes.py) import no private (_underscore) name of another module;
- no module of the agent is named safety.py (detection is app/safety's; the agent's texts
  live in prompts.py and messages.py).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.unit.layout import long_functions, long_modules

ROOT = Path(__file__).resolve().parents[3]
AGENT = ROOT / "app" / "agent"
MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 60


def modules(root: Path = AGENT) -> list[Path]:
    return sorted(root.rglob("*.py"))


def private_imports(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            out += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    return out


def test_no_agent_module_is_longer_than_300_lines() -> None:
    found = long_modules(modules(), MAX_MODULE_LINES)
    assert not found, f"modules over {MAX_MODULE_LINES} lines: {found}"


def test_no_agent_function_is_longer_than_60_lines() -> None:
    found = long_functions(modules(), MAX_FUNCTION_LINES)
    assert not found, f"functions over {MAX_FUNCTION_LINES} lines: {found}"


def test_nodes_import_no_private_helper() -> None:
    found = private_imports(AGENT / "nodes.py")
    assert not found, f"nodes.py imports private names (make them public): {found}"


def test_no_agent_module_is_named_safety() -> None:
    found = [str(p.relative_to(ROOT)) for p in modules() if p.name == "safety.py"]
    assert not found, f"app/safety detects; name the agent's texts by job: {found}"
