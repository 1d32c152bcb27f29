"""Section 2: load on loopback (embedded default, compose stack, workers x threads)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report import charts
from bench.report.format import Section, met, num, table

THROUGHPUT_TARGET_RPS = 180.0  # issue 17: embedded default at concurrency 32
P99_AT_64_BEFORE_MS = 1209.3  # docs/benchmarks.md before issue 17 (commit deb583c)

HEAD = ["concurrency", "requests", "throughput req/s", "errors", "p50 ms", "p95 ms", "p99 ms"]


def level_rows(rows: list[dict[str, Any]]) -> list[list[Any]]:
    return [
        [r["concurrency"], r["requests"], num(r["throughput_rps"], 1)]
        + [f"{r['error_rate'] * 100:.2f}% ({r['http_errors']} HTTP, {r['conn_errors']} connection)"]
        + [num(r["latency_ms"][q], 1) for q in ("p50", "p95", "p99")]
        for r in rows
    ]


def _embedded(em: dict[str, Any]) -> str:
    return (
        f"Closed-loop load generator (`bench/loadgen.py`: raw asyncio HTTP/1.1 keep-alive, so "
        f"the client costs little of the 2 cores it shares with the server) on "
        f"`POST {em['path']}` with the 102 golden questions in rotation, "
        f"{num(em['duration_s'], 0)} s per level, after a warm-up.\n\n"
        f"**Embedded default** (gunicorn, {em['workers']} uvicorn workers, embedded Chroma in "
        f"each worker):\n\n" + table(HEAD, level_rows(em["levels"]))
    )


def _compose(co: dict[str, Any]) -> str:
    if not co.get("levels"):
        return f"**Compose stack:** not measured:\n\n```text\n{co.get('skipped', '?')}\n```"
    return (
        f"**Compose stack** (`docker compose -p {co['project']}`: chroma server, api with "
        f"{co['workers']} workers; API published on 127.0.0.1 only; up in "
        f"{num(co.get('startup_s'), 0)} s; torn down with `down -v`):\n\n"
        + table(HEAD, level_rows(co["levels"]))
    )


def _sweep(sw: dict[str, Any]) -> str:
    rows = [
        [r["workers"], r["threads"], r["workers"] * r["threads"], num(r["throughput_rps"], 1)]
        + [num(r["latency_ms"]["p50"], 1), num(r["latency_ms"]["p95"], 1)]
        + [r["http_errors"] + r["conn_errors"], num(r["total_rss_mb"], 0)]
        for r in sw["rows"]
    ]
    best = max(sw["rows"], key=lambda r: r["throughput_rps"])
    head = ["workers", "threads/worker", "threads total", "throughput req/s", "p50 ms"]
    head += ["p95 ms", "errors", "RSS total MB"]
    return (
        f"**Workers x threads** (`WEB_CONCURRENCY` x `TORCH_THREADS`, the embedding forward "
        f"pass threads per worker), concurrency {sw['concurrency']}, "
        f"{num(sw['duration_s'], 0)} s each:\n\n"
        + table(head, rows)
        + f"\n\nBest throughput: **{best['workers']} worker(s) x {best['threads']} thread(s)** "
        f"({num(best['throughput_rps'], 1)} req/s).\n\n![load](bench/load.png)"
    )


def _pipeline(ps: dict[str, Any] | None) -> tuple[str, list[str]]:
    if not ps:
        return "", []
    rows = [
        [r["pipeline_threads"], num(r["throughput_rps"], 1)]
        + [num(r["latency_ms"][q], 1) for q in ("p50", "p95", "p99")]
        + [r["http_errors"] + r["conn_errors"]]
        for r in ps["rows"]
    ]
    head = ["PIPELINE_THREADS", "throughput req/s", "p50 ms", "p95 ms", "p99 ms", "errors"]
    text = (
        f"**Questions a worker works on at once** (`PIPELINE_THREADS`; 40 is what the default "
        f"thread pool allowed before issue 17), embedded default with 2 workers, concurrency "
        f"{ps['concurrency']}, {num(ps['duration_s'], 0)} s each:\n\n" + table(head, rows)
    )
    by = {r["pipeline_threads"]: r for r in ps["rows"]}
    findings = []
    if 1 in by and 40 in by:
        a, b = by[40], by[1]
        findings.append(
            f"**One question at a time per worker, shorter tail:** at {ps['concurrency']} "
            f"clients, PIPELINE_THREADS=1 (the default with the extractive answer) served "
            f"{num(b['throughput_rps'], 1)} req/s with p99 {num(b['latency_ms']['p99'], 0)} ms, "
            f"against {num(a['throughput_rps'], 1)} req/s and p99 "
            f"{num(a['latency_ms']['p99'], 0)} ms with 40 threads: each worker has one core, "
            f"and threads beyond that only fight over the GIL."
        )
    return text, findings


def _sweep_findings(sw: dict[str, Any]) -> list[str]:
    by = {(r["workers"], r["threads"]): r for r in sw["rows"]}
    out = []
    for one, two, what in (
        ((1, 1), (1, 2), "inside one worker (1 worker, 2 BLAS threads vs 1)"),
        ((2, 1), (2, 2), "across workers (2 workers x 2 threads = 4 threads on 2 cores, vs 2 x 1)"),
    ):
        if one in by and two in by:
            a, b = by[one], by[two]
            # The advice follows this run's numbers: the USE forward pass is small numpy work,
            # and on a quiet host the extra threads can cost nothing, or even help a little.
            worse = b["throughput_rps"] < 0.95 * a["throughput_rps"]
            verdict = (
                "Keep workers x threads <= cores, as `app/gunicorn_conf.py` does (it caps "
                "TORCH_THREADS at cores // workers)."
                if worse
                else "No loss from the extra threads in this run (within 5% or better). "
                "`app/gunicorn_conf.py` still caps TORCH_THREADS at cores // workers: with a "
                "torch model, oversubscribed threads collapsed throughput (its comment)."
            )
            out.append(
                f"**Thread oversubscription {what}:** {num(b['throughput_rps'], 1)} req/s, p95 "
                f"{num(b['latency_ms']['p95'], 0)} ms against {num(a['throughput_rps'], 1)} "
                f"req/s, p95 {num(a['latency_ms']['p95'], 0)} ms. {verdict}"
            )
    return out


def _throughput_miss(c32: dict[str, Any], cores: int) -> str:
    """The CPU a request costs at the measured rate against what the target allows."""
    budget = cores * 1000 / THROUGHPUT_TARGET_RPS
    spent = cores * 1000 / c32["throughput_rps"]
    return (
        f"{THROUGHPUT_TARGET_RPS:.0f} req/s on {cores} cores leaves {num(budget, 1)} ms of CPU "
        f"per request, HTTP and the load generator (on the same cores) included; at "
        f"{num(c32['throughput_rps'], 1)} req/s each request took {num(spent, 1)} ms of them "
        f"(the in-process ask alone: section 1)"
    )


def render(ld: dict[str, Any], charts_dir: Path) -> Section:
    charts.load(ld, charts_dir / "load.png")
    em, co = ld["embedded"], ld.get("compose", {})
    levels = em["levels"] + (co.get("levels") or [])
    errors = sum(r["http_errors"] + r["conn_errors"] for r in levels)
    pipeline_text, pipeline_findings = _pipeline(ld.get("pipeline_sweep"))
    parts = ["## 2. Load\n", _embedded(em), _compose(co), _sweep(ld["sweep"])]
    markdown = "\n\n".join(parts + ([pipeline_text] if pipeline_text else []))
    scope = "embedded and compose" if co.get("levels") else "embedded"
    by_c = {r["concurrency"]: r for r in em["levels"]}
    c32, c64 = by_c.get(32), by_c.get(64)
    targets = [[f"Load: zero errors ({scope}, all levels)", f"{errors} errors", met(errors == 0)]]
    if c32:
        ok = c32["throughput_rps"] >= THROUGHPUT_TARGET_RPS and c32["http_errors"] == 0
        targets.append(
            [
                f"Embedded default at c=32: >= {THROUGHPUT_TARGET_RPS:.0f} req/s, no errors",
                f"{num(c32['throughput_rps'], 1)} req/s, "
                f"{c32['http_errors'] + c32['conn_errors']} errors",
                met(ok and c32["conn_errors"] == 0),
                "" if ok else _throughput_miss(c32, ld["cores"]),
            ]
        )
    if c64:
        p99 = c64["latency_ms"]["p99"]
        targets.append(
            [
                f"Embedded default: p99 at 64 clients below before ({P99_AT_64_BEFORE_MS:,} ms)",
                f"{num(p99, 1)} ms",
                met(p99 < P99_AT_64_BEFORE_MS),
            ]
        )
    return Section(markdown, targets, pipeline_findings + _sweep_findings(ld["sweep"]))
