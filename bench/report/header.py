"""The top of docs/benchmarks.md: how to run, what machine, how loaded it was."""

from __future__ import annotations

from typing import Any

USAGE = (
    "# Benchmarks\n\n"
    "Written by `make bench` (`python -m bench`; the extra packages of the LangChain "
    "peer come from `requirements-bench.txt`). Do not edit by hand: rerun.\n\n"
    "```bash\nmake bench                 # everything, ~12-15 min on 2 cores\n"
    "BENCH_QUICK=1 make bench   # smoke run: small corpora, 3 s load steps\n"
    ".venv/bin/python -m bench --only floor peer   # some sections\n"
    ".venv/bin/python -m bench --no-compose         # without the Docker stack\n"
    ".venv/bin/python -m bench --render-only        # from artifacts/bench/results.json\n"
    "```\n\n"
)


def render(results: dict[str, Any]) -> str:
    m = results["machine"]
    s = results["sections"]
    per_section = ", ".join(f"{k} {v.get('load_avg_1m_at_start')}" for k, v in s.items())
    merge = results.get("merge_note")
    return (
        USAGE + f"Run: {m['date']}, commit `{m['git']}`, {m['cores']} cores ({m['cpu']}), "
        f"{m['ram_gb']} GB RAM, Python {m['python']}, quick={results.get('quick')}, "
        f"total {results.get('total_seconds', 0) / 60:.1f} min; "
        f"{m.get('uncommitted_app_files', 0)} uncommitted files under app/, ingest/, "
        f"evaluation/ at the start (others were editing the tree). 1-minute load average at "
        f"the start: {m['load_avg_at_start'][0]}; per section: {per_section}. A load average "
        "above ~0.5 before a section means other processes were using the 2 cores during "
        "it: numbers are then pessimistic, sometimes much.\n\n"
        + (f"**Runs merged.** {merge}\n\n" if merge else "")
        + "All traffic goes to 127.0.0.1 only. Every load step is a closed loop bounded by "
        "time and by a request cap; every server the benchmark starts is stopped at the end "
        "(the compose project with `down -v`)."
    )
