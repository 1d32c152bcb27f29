"""Sizes of source modules and functions, read with ast (no imports run); shared by the
layout tests of the whole tree (tests/unit/test_architecture.py) and of the agent
(tests/unit/agent/test_layout.py)."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def long_modules(paths: Iterable[Path], limit: int) -> dict[str, int]:
    """Modules over `limit` lines, by path from the repository root."""
    out = {}
    for path in paths:
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            out[str(path.relative_to(ROOT))] = lines
    return out


def long_functions(paths: Iterable[Path], limit: int) -> dict[str, int]:
    """Functions and methods over `limit` lines (def line to the body's last line)."""
    out = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > limit:
                    out[f"{path.relative_to(ROOT)}:{node.name}"] = lines
    return out
