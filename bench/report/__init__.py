"""docs/benchmarks.md and docs/bench/*.png from the raw results: one renderer per
section (header, floor, profile, load, startup, ingest, memory, peer); `write` puts them
together with the targets table at the top and the findings at the end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report import floor, header, ingest, load, memory, peer, profile, startup
from bench.report.format import Section, table


def sections(results: dict[str, Any], charts_dir: Path) -> list[Section]:
    s = results["sections"]
    out: list[Section | None] = [
        floor.render(s["floor"], charts_dir) if "floor" in s else None,
        profile.render(s["profile"]) if "profile" in s else None,
        load.render(s["load"], charts_dir) if "load" in s else None,
        startup.render(s["startup"]) if "startup" in s else None,
        ingest.render(s["ingest"], charts_dir, bool(results.get("quick")))
        if "ingest" in s
        else None,
        memory.render(s),
        peer.render(s["peer"], charts_dir) if "peer" in s else None,
    ]
    return [x for x in out if x is not None]


def write(results: dict[str, Any], out: Path) -> None:
    charts_dir = out.parent / "bench"
    charts_dir.mkdir(parents=True, exist_ok=True)
    rendered = sections(results, charts_dir)
    # A row's fourth cell says why a target is not met (empty when it is, or unexplained).
    targets = [[*row, ""][:4] for sec in rendered for row in sec.targets]
    findings = [f for sec in rendered for f in sec.findings]
    # Notes written into results.json after a run (what a target's miss is due to, what
    # was not measured and why), rendered with `--render-only`.
    findings += list(results.get("notes", []))
    doc = "\n\n".join(
        [
            header.render(results),
            "## Targets\n\n"
            + table(["target", "measured", "status", "why not met (this run's numbers)"], targets),
            *(sec.markdown for sec in rendered),
            "## Findings and fixes\n\n" + "\n".join(f"- {f}" for f in findings),
        ]
    )
    out.write_text(doc + "\n", encoding="utf-8")
