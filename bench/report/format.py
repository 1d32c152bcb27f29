"""Markdown helpers shared by the section renderers, and what a renderer returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

HOST_RAM_MB = 16 * 1024  # the production host: 2 vCPU / 16 GB
OS_RESERVE_MB = 2048  # OS, page cache floor, docker daemon


@dataclass
class Section:
    """A rendered section: its Markdown, its rows of the targets table, its findings."""

    markdown: str
    targets: list[list[Any]] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)


def num(x: Any, nd: int = 1) -> str:
    """A number with thousands separators; an en dash for None or NaN."""
    if x is None:
        return "–"
    try:
        if x != x:  # nan
            return "–"
    except TypeError:
        return str(x)
    return f"{x:,.{nd}f}"


def met(ok: bool | None) -> str:
    if ok is None:
        return "not measured"
    return "**met**" if ok else "**not met**"


def table(head: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)
