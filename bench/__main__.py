"""`python -m bench`: run every benchmark on this machine, write docs/benchmarks.md and
docs/bench/*.png. BENCH_QUICK=1 for a short smoke run (smaller corpora, shorter loads).

Raw results go to artifacts/bench/results.json; `--render-only` rewrites the report from
them without measuring again.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import QUICK, ROOT, bench_settings, log, machine

SECTIONS = ("floor", "profile", "load", "startup", "ingest", "peer")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks.md")
    parser.add_argument(
        "--results", type=Path, default=ROOT / "artifacts" / "bench" / "results.json"
    )
    parser.add_argument("--only", nargs="*", choices=SECTIONS, help="run only these sections")
    parser.add_argument("--no-compose", action="store_true", help="skip the compose stack")
    parser.add_argument("--render-only", action="store_true", help="re-render from --results")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    logging.basicConfig(level=logging.WARNING)

    from bench import report

    if args.render_only:
        results = json.loads(args.results.read_text())
    else:
        results = measure(args.only or list(SECTIONS), not args.no_compose, args.results)
        log(f"raw results: {args.results}")
    report.write(results, args.out)
    log(f"report: {args.out}")
    return 0


def _save(results: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1, ensure_ascii=False))


def measure(sections: list[str], with_compose: bool, save_to: Path) -> dict[str, Any]:
    """Run the sections; raw results are saved after each one (an interrupted run keeps
    what it measured: `--render-only` then reports it)."""
    from bench import floor, ingest_scaling, load, peer, profile, startup
    from bench.served import ensure_index

    started = time.monotonic()
    settings = bench_settings()
    results: dict[str, Any] = {"machine": machine(), "sections": {}}
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="rag-bench-") as tmp:
        workdir = Path(tmp)
        chroma_path = workdir / "served" / "chroma"
        if {"floor", "profile", "load", "startup"} & set(sections):
            log("building the bundled-corpus index for the served API (python -m ingest)")
            ensure_index(chroma_path)
        for name in sections:
            t = time.monotonic()
            load_avg = os.getloadavg()[0]
            if name == "floor":
                res = floor.run(workdir, chroma_path, settings)
            elif name == "profile":
                res = profile.run(chroma_path, workdir)
            elif name == "load":
                res = load.run(chroma_path, with_compose)
            elif name == "startup":
                res = startup.run(chroma_path)
            elif name == "ingest":
                res = ingest_scaling.run(workdir, settings)
            else:
                res = peer.run(workdir, settings)
            res["load_avg_1m_at_start"] = round(load_avg, 2)
            results["sections"][name] = res
            timings[name] = time.monotonic() - t
            log(f"{name} done in {timings[name]:.0f} s")
            results["section_seconds"] = timings
            results["total_seconds"] = time.monotonic() - started
            results["quick"] = QUICK
            _save(results, save_to)
    results["section_seconds"] = timings
    results["total_seconds"] = time.monotonic() - started
    results["quick"] = QUICK
    return results


if __name__ == "__main__":
    sys.exit(main())
