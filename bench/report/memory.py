"""Section 4: memory of the serving processes and of the Chroma server."""

from __future__ import annotations

from typing import Any

from bench.report.format import HOST_RAM_MB, OS_RESERVE_MB, Section, met, num, table


def _load_rows(ld: dict[str, Any]) -> list[list[Any]]:
    em = ld["embedded"]
    idle = em["memory_idle_warm"]
    peak = em["memory_under_load_peak"]
    rows = [
        [
            "API worker (embedded default), idle after warm-up, RSS / PSS each",
            " / ".join(num(x, 0) for x in idle["workers_rss_mb"])
            + " MB RSS; "
            + " / ".join(num(x, 0) for x in idle["workers_pss_mb"])
            + " MB PSS",
        ],
        [
            "API worker, idle cold (before any request)",
            " / ".join(num(x, 0) for x in em["memory_idle_cold"]["workers_rss_mb"]) + " MB RSS",
        ],
        ["gunicorn master", f"{num(idle['master_rss_mb'], 0)} MB RSS"],
        [
            "API whole (master + 2 workers), peak under load (c up to 64)",
            f"{num(peak['total_rss_mb'], 0)} MB RSS (largest worker "
            f"{num(peak['max_worker_rss_mb'], 0)} MB)",
        ],
    ]
    co = ld.get("compose", {})
    if co.get("levels"):
        for label, key in (
            ("idle after warm-up", "memory_idle_warm_mb"),
            ("peak under load", "memory_under_load_peak_mb"),
        ):
            stats = co.get(key, {})
            listing = ", ".join(f"{k} {num(v, 0)} MB" for k, v in sorted(stats.items()))
            total = num(sum(stats.values()), 0)
            rows.append(
                [f"compose stack, {label} (`docker stats`)", f"{listing}; total {total} MB"]
            )
    return rows


API_LIMIT_MB = 6 * 1024  # compose.yaml: the api service's memory limit


def _large_build(ing: dict[str, Any]) -> tuple[list[list[Any]], list[list[Any]]]:
    api = ing.get("api_with_largest_build")
    if not api or "memory_after_requests" not in api:
        return [], []
    mem = api["memory_after_requests"]
    total = mem["total_rss_mb"]
    rows = [
        [
            f"API whole (master + 2 workers) serving a {api['cards']:,}-card build (Chroma "
            f"server store), after {len(mem['workers_rss_mb'])} workers loaded it",
            f"{num(total, 0)} MB RSS (workers "
            + " / ".join(num(x, 0) for x in mem["workers_rss_mb"])
            + " MB RSS, "
            + " / ".join(num(x, 0) for x in mem["workers_pss_mb"])
            + f" MB PSS); ready {num(api['ready_s'], 1)} s after start; /api/search p50 "
            f"{num(api['search_ms']['p50'], 1)} ms",
        ]
    ]
    target = [
        f"Memory: API with a {api['cards']:,}-card build within the compose limit (api 6 GB)",
        f"{num(total, 0)} MB RSS",
        met(total < API_LIMIT_MB),
    ]
    return rows, [target]


def _ingest_rows(ing: dict[str, Any]) -> list[list[Any]]:
    return [
        [
            f"Chroma server after ingesting {r['cards']:,} cards ({r['chunks']:,} chunks)",
            f"{num(r['chroma_rss_after_ingest_mb'], 0)} MB RSS (empty: "
            f"{num(r['chroma_rss_empty_mb'], 0)} MB)",
        ]
        for r in ing["sizes"]
    ]


def _headroom(ld: dict[str, Any], ing: dict[str, Any]) -> tuple[str, list[Any]]:
    em = ld["embedded"]
    worker = em["memory_under_load_peak"]["max_worker_rss_mb"]
    master = em["memory_idle_warm"]["master_rss_mb"]
    chroma_max = max(r["chroma_rss_after_ingest_mb"] for r in ing["sizes"])
    workers = max(2, ld["sweep"]["best"]["workers"])
    need = workers * worker + master + chroma_max + OS_RESERVE_MB
    text = (
        f"\n\nHeadroom on the 16 GB host with {workers} workers: {workers} x {num(worker, 0)} MB "
        f"(peak worker RSS under load) + {num(master, 0)} MB master + {num(chroma_max, 0)} MB "
        f"Chroma at the largest corpus + {OS_RESERVE_MB} MB for the OS = "
        f"**{num(need, 0)} MB of {HOST_RAM_MB:,} MB** ({need / HOST_RAM_MB * 100:.0f}%). RSS "
        f"counts shared pages in every process, so this overstates. The compose limits (api "
        f"6 GB, chroma 4 GB) are far above these numbers."
    )
    target = [
        "Memory: 16 GB host has headroom with the chosen workers",
        f"{num(need, 0)} MB needed",
        met(need < HOST_RAM_MB),
    ]
    return text, target


def render(sections: dict[str, Any]) -> Section | None:
    ld, ing = sections.get("load"), sections.get("ingest")
    large, targets = _large_build(ing) if ing else ([], [])
    rows = (_load_rows(ld) if ld else []) + large + (_ingest_rows(ing) if ing else [])
    if not rows:
        return None
    markdown = "## 4. Memory\n\n" + table(["what", "measured"], rows)
    if ld and ing:
        text, target = _headroom(ld, ing)
        markdown += text
        targets.append(target)
    return Section(markdown, targets)
