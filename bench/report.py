"""docs/benchmarks.md and docs/bench/*.png from the raw results."""

from __future__ import annotations

from pathlib import Path
from typing import Any

HOST_RAM_MB = 16 * 1024  # the production host: 2 vCPU / 16 GB
OS_RESERVE_MB = 2048  # OS, page cache floor, docker daemon


def _f(x: Any, nd: int = 1) -> str:
    if x is None:
        return "–"
    try:
        if x != x:  # nan
            return "–"
    except TypeError:
        return str(x)
    return f"{x:,.{nd}f}"


def _met(ok: bool | None) -> str:
    if ok is None:
        return "not measured"
    return "**met**" if ok else "**not met**"


def _table(head: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


# -- charts --------------------------------------------------------------------------


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def chart_floor(fl: dict[str, Any], path: Path) -> None:
    plt = _plt()
    inproc = fl["in_process"]["ask_steps_ms"]
    steps = [
        s for s in ("embed", "vector_query", "dedupe_expand", "generate", "verify") if s in inproc
    ]
    fig, ax = plt.subplots(figsize=(8, 3.6))
    labels = ["floor (in-process)", "/api/search p50", "/api/ask p50"]
    floor = fl["in_process"]["floor_ms"]["p50"]
    ax.barh(0, floor, color="#4c72b0")
    for i, route in enumerate(("/api/search", "/api/ask"), start=1):
        means = fl["http"][route]["server_step_means_ms"]
        left = 0.0
        for s in steps:
            if s in means:
                ax.barh(i, means[s], left=left, label=s if i == 2 else None)
                left += means[s]
        p50 = fl["http"][route]["latency_ms"]["p50"]
        ax.barh(
            i,
            max(p50 - left, 0),
            left=left,
            color="#bbbbbb",
            label="HTTP + framework" if i == 2 else None,
        )
    ax.set_yticks(range(3), labels)
    ax.set_xlabel("ms (steps: server means from /metrics; bar length: client p50)")
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def chart_load(ld: dict[str, Any], path: Path) -> None:
    plt = _plt()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.6))
    for name in ("embedded", "compose"):
        rows = ld.get(name, {}).get("levels")
        if not rows:
            continue
        cs = [r["concurrency"] for r in rows]
        a1.plot(cs, [r["throughput_rps"] for r in rows], marker="o", label=name)
        a2.plot(cs, [r["latency_ms"]["p95"] for r in rows], marker="o", label=name)
    for ax, ylabel in ((a1, "throughput (req/s)"), (a2, "p95 latency (ms)")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("concurrency (closed loop)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    a2.set_yscale("log")
    fig.suptitle("POST /api/ask on 127.0.0.1, 2 workers", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def chart_ingest(ing: dict[str, Any], path: Path) -> None:
    plt = _plt()
    rows = ing["sizes"]
    fig, ax = plt.subplots(figsize=(7, 3.6))
    xs = range(len(rows))
    bottom = [0.0] * len(rows)
    for key, label in (
        ("embed_s", "embedding"),
        ("write_s", "store writes"),
        ("verify_s", "verify"),
        ("other_s", "other"),
    ):
        vals = [r[key] / r["cards"] * 1000 for r in rows]
        ax.bar(xs, vals, bottom=bottom, label=label)
        bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
    ax.set_xticks(list(xs), [f"{r['cards']:,} cards" for r in rows])
    ax.set_ylabel("ms per card")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def chart_peer(pe: dict[str, Any], path: Path) -> None:
    plt = _plt()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.4))
    ks = [1, 3, 5]
    for name in ("ours", "langchain"):
        a1.plot(ks, [pe[name][f"recall@{k}"] for k in ks], marker="o", label=name)
    a1.set_xticks(ks)
    a1.set_xlabel("k")
    a1.set_ylabel("recall@k (in-scope golden)")
    a1.set_ylim(0.5, 1.01)
    a1.grid(alpha=0.3)
    a1.legend(fontsize=8)
    names = ["ours", "langchain"]
    for q, off in (("p50", -0.2), ("p95", 0.2)):
        a2.bar(
            [i + off for i in range(2)], [pe[n]["latency_ms"][q] for n in names], width=0.4, label=q
        )
    a2.set_xticks(range(2), names)
    a2.set_ylabel("query latency (ms)")
    a2.legend(fontsize=8)
    a2.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# -- the document ----------------------------------------------------------------------


def write(results: dict[str, Any], out: Path) -> None:
    charts = out.parent / "bench"
    charts.mkdir(parents=True, exist_ok=True)
    s = results["sections"]
    m = results["machine"]
    parts: list[str] = []
    targets: list[list[Any]] = []
    findings: list[str] = []

    parts.append(
        "# Benchmarks\n\n"
        "Written by `make bench` (`python -m bench`; the extra packages of the LangChain "
        "peer come from `requirements-bench.txt`). Do not edit by hand: rerun.\n\n"
        "```bash\nmake bench                 # everything, ~12-15 min on 2 cores\n"
        "BENCH_QUICK=1 make bench   # smoke run: small corpora, 3 s load steps\n"
        ".venv/bin/python -m bench --only floor peer   # some sections\n"
        ".venv/bin/python -m bench --no-compose         # without the Docker stack\n"
        ".venv/bin/python -m bench --render-only        # from artifacts/bench/results.json\n"
        "```\n\n"
        f"Run: {m['date']}, commit `{m['git']}`, {m['cores']} cores ({m['cpu']}), "
        f"{m['ram_gb']} GB RAM, Python {m['python']}, quick={results.get('quick')}, "
        f"total {results.get('total_seconds', 0) / 60:.1f} min; "
        f"{m.get('uncommitted_app_files', 0)} uncommitted files under app/, ingest/, "
        f"evaluation/ at the start (others were editing the tree). 1-minute load average at the "
        f"start: {m['load_avg_at_start'][0]}"
        + "; per section: "
        + ", ".join(f"{k} {v.get('load_avg_1m_at_start')}" for k, v in s.items())
        + ". A load average above ~0.5 before a section means other processes were using "
        "the 2 cores during it: numbers are then pessimistic, sometimes much.\n\n"
        + (f"**Two runs merged.** {results['merge_note']}\n\n" if results.get("merge_note") else "")
        + "All traffic goes to 127.0.0.1 only. Every load step is a closed loop bounded by "
        "time and by a request cap; every server the benchmark starts is stopped at the end "
        "(the compose project with `down -v`)."
    )

    # -- floor
    fl = s.get("floor")
    if fl:
        ip = fl["in_process"]
        chart_floor(fl, charts / "floor.png")
        rows = []
        present = fl["retrieval_mode_present"]
        for step in (
            "embed",
            "vector_query",
            "bm25",
            "fusion",
            "dedupe_expand",
            "generate",
            "verify",
        ):
            src = ip["ask_steps_ms"].get(step) or ip["search_steps_ms"].get(step)
            if src is None and step in ("bm25", "fusion"):
                src = ip.get("hybrid_steps_ms", {}).get(step)
                if src is not None:
                    step = f"{step} (RETRIEVAL_MODE=hybrid, in-process; default is dense)"
            srv_s = fl["http"]["/api/search"]["server_step_means_ms"].get(step)
            srv_a = fl["http"]["/api/ask"]["server_step_means_ms"].get(step)
            if src is None and srv_a is None:
                note = (
                    "not present (no RETRIEVAL_MODE setting in app/core/config.py)"
                    if step in ("bm25", "fusion") and not present
                    else "present but not timed"
                    if step in ("bm25", "fusion")
                    else "not measured"
                )
                rows.append([step, note, "", "", ""])
                continue
            rows.append(
                [
                    step,
                    _f(src["p50"], 2) if src else "–",
                    _f(src["p95"], 2) if src else "–",
                    _f(srv_s, 2),
                    _f(srv_a, 2),
                ]
            )
        rows.append(
            [
                "LangGraph and agent bookkeeping (ask total - steps)",
                _f(ip["graph_overhead_ms"]["p50"], 2),
                _f(ip["graph_overhead_ms"]["p95"], 2),
                "",
                "",
            ]
        )
        rows.append(
            [
                "**floor = embed + vector_query**",
                _f(ip["floor_ms"]["p50"], 2),
                _f(ip["floor_ms"]["p95"], 2),
                "",
                "",
            ]
        )
        parts.append(
            "## 1. Latency against the floor\n\n"
            f"The floor is what no implementation of this design can avoid per question: one "
            f"query embedding plus one vector query. Measured in-process with the app's own "
            f"`Retriever.search` (`timings_ms`) and `Agent.ask` (state `timings_ms`), with the "
            f"thread budget of one served worker ({ip['threads']} thread(s): "
            f"`app/gunicorn_conf.py` gives each of the 2 workers cores // workers), on the "
            f"bundled corpus, {ip['requests']} calls after a warm-up pass. Then the same index "
            f"served by gunicorn (2 uvicorn workers), one request at a time over a keep-alive "
            f"connection; server-side step means come from `/metrics` "
            f"(`rag_step_seconds`), scraped before and after each route's run, so "
            f"**HTTP overhead = client latency - server pipeline time in the same run**.\n\n"
            + _table(
                [
                    "step",
                    "in-process p50 ms",
                    "in-process p95 ms",
                    "served /api/search mean ms",
                    "served /api/ask mean ms",
                ],
                rows,
            )
        )
        hrows = []
        for route in ("/api/search", "/api/ask"):
            h = fl["http"][route]
            lat = h["latency_ms"]
            r = fl["ratio_to_floor"][route]
            hrows.append(
                [
                    f"`{route}`",
                    lat["n"],
                    _f(lat["p50"], 2),
                    _f(lat["p95"], 2),
                    _f(lat["p99"], 2),
                    f"{r['p50']:.2f}x / {r['p95']:.2f}x / {r['p99']:.2f}x",
                    _f(h["pipeline_mean_ms"], 2),
                    _f(h["http_overhead_mean_ms"], 2),
                ]
            )
        cold = fl["http"].get("cold_first_pass_ask_ms")
        parts.append(
            _table(
                [
                    "route",
                    "n",
                    "p50 ms",
                    "p95 ms",
                    "p99 ms",
                    "ratio to floor p50/p95/p99",
                    "server pipeline mean ms",
                    "HTTP overhead mean ms",
                ],
                hrows,
            )
            + "\n\n![floor](bench/floor.png)\n"
        )
        if cold:
            parts.append(
                f"Cold start: the first pass of the golden set on a freshly started service "
                f"(`/api/ask`, one connection, so mostly one worker) has p50 "
                f"{_f(cold['p50'], 1)} ms, p95 {_f(cold['p95'], 1)} ms, p99 {_f(cold['p99'], 1)} "
                f"ms: the extractive generator embeds each card's sentences on first use, "
                f"per worker (`SentenceVectors` cache). The table above is after warm-up."
            )
            findings.append(
                f"**Per-worker cold cache.** The first questions a worker answers pay for "
                f"embedding every sentence of the cards they touch (`/api/ask` cold p95 "
                f"{_f(cold['p95'], 0)} ms vs warm "
                f"{_f(fl['http']['/api/ask']['latency_ms']['p95'], 0)} "
                f"ms). Fixed in 3367a7e: `Resources.warm()` embeds the sentences of the "
                f"served cards (up to 400) when a worker starts, so cold and warm match."
            )
        go = ip["graph_overhead_ms"]["p50"]
        findings.append(
            f"**LangGraph bookkeeping per ask: {_f(go, 2)} ms p50** in-process "
            f"({go / ip['ask_total_ms']['p50'] * 100:.0f}% of the in-process ask, "
            f"{go / ip['floor_ms']['p50']:.2f}x of the floor budget). It is the state copying "
            f"and channel machinery of `graph.invoke` for 5 trivial nodes, not work. If the "
            f"`/api/ask` target matters more than the graph abstraction, `Agent.ask` can call "
            f"the same node functions in order (retrieve, gate, generate/refuse, verify, "
            f"respond) without `StateGraph`; measured here as the difference between the "
            f"ask total and the sum of its timed steps."
        )
        findings.append(
            f"**Audit of repeated work:** during {ip['requests']} in-process calls, "
            f"{ip['audit']['chroma_client_created']} Chroma clients and "
            f"{ip['audit']['embedder_created']} embedders were created: clients and the model "
            f"are per process, not per request (good)."
        )
        sr, ar = fl["ratio_to_floor"]["/api/search"]["p50"], fl["ratio_to_floor"]["/api/ask"]["p50"]
        targets.append(
            [
                "`/api/search` p50 within 1.5x of the floor",
                f"{sr:.2f}x",
                _met(fl["targets"]["search_p50_within_1.5x"]),
            ]
        )
        targets.append(
            [
                "`/api/ask` (extractive) p50 within 2.5x of the floor",
                f"{ar:.2f}x",
                _met(fl["targets"]["ask_p50_within_2.5x"]),
            ]
        )

    # -- load
    ld = s.get("load")
    mem_rows: list[list[Any]] = []
    if ld:
        chart_load(ld, charts / "load.png")
        text = ["## 2. Load\n"]

        def level_rows(rows: list[dict[str, Any]]) -> list[list[Any]]:
            return [
                [
                    r["concurrency"],
                    r["requests"],
                    _f(r["throughput_rps"], 1),
                    f"{r['error_rate'] * 100:.2f}% "
                    f"({r['http_errors']} HTTP, {r['conn_errors']} connection)",
                    _f(r["latency_ms"]["p50"], 1),
                    _f(r["latency_ms"]["p95"], 1),
                    _f(r["latency_ms"]["p99"], 1),
                ]
                for r in rows
            ]

        head = [
            "concurrency",
            "requests",
            "throughput req/s",
            "errors",
            "p50 ms",
            "p95 ms",
            "p99 ms",
        ]
        em = ld["embedded"]
        text.append(
            f"Closed-loop load generator (`bench/loadgen.py`: raw asyncio HTTP/1.1 keep-alive, "
            f"so the client costs little of the 2 cores it shares with the server) on "
            f"`POST {em['path']}` with the 102 golden questions in rotation, "
            f"{_f(em['duration_s'], 0)} s per level, after a warm-up.\n\n"
            f"**Embedded default** (gunicorn, {em['workers']} uvicorn workers, embedded Chroma "
            f"in each worker):\n\n" + _table(head, level_rows(em["levels"]))
        )
        errors_total = sum(r["http_errors"] + r["conn_errors"] for r in em["levels"])
        co = ld.get("compose", {})
        if co.get("levels"):
            text.append(
                f"**Compose stack** (`docker compose -p {co['project']}`: chroma server, api "
                f"with {co['workers']} workers; API published on 127.0.0.1 only; up in "
                f"{_f(co.get('startup_s'), 0)} s; torn down with `down -v`):\n\n"
                + _table(head, level_rows(co["levels"]))
            )
            errors_total += sum(r["http_errors"] + r["conn_errors"] for r in co["levels"])
        else:
            text.append(
                f"**Compose stack:** not measured:\n\n```text\n{co.get('skipped', '?')}\n```"
            )
        sw = ld["sweep"]
        srows = [
            [
                r["workers"],
                r["threads"],
                r["workers"] * r["threads"],
                _f(r["throughput_rps"], 1),
                _f(r["latency_ms"]["p50"], 1),
                _f(r["latency_ms"]["p95"], 1),
                r["http_errors"] + r["conn_errors"],
                _f(r["total_rss_mb"], 0),
            ]
            for r in sw["rows"]
        ]
        best = max(sw["rows"], key=lambda r: r["throughput_rps"])
        text.append(
            f"**Workers x threads** (`WEB_CONCURRENCY` x `TORCH_THREADS`, the embedding "
            f"forward pass threads per worker), concurrency {sw['concurrency']}, "
            f"{_f(sw['duration_s'], 0)} s each:\n\n"
            + _table(
                [
                    "workers",
                    "threads/worker",
                    "threads total",
                    "throughput req/s",
                    "p50 ms",
                    "p95 ms",
                    "errors",
                    "RSS total MB",
                ],
                srows,
            )
            + f"\n\nBest throughput: **{best['workers']} worker(s) x {best['threads']} "
            f"thread(s)** ({_f(best['throughput_rps'], 1)} req/s).\n\n![load](bench/load.png)"
        )
        by = {(r["workers"], r["threads"]): r for r in sw["rows"]}
        if (1, 2) in by and (1, 1) in by:
            a, b = by[(1, 1)], by[(1, 2)]
            findings.append(
                f"**Thread oversubscription inside one worker.** With 1 worker, giving the "
                f"numpy/BLAS forward pass 2 threads yields {_f(b['throughput_rps'], 1)} req/s "
                f"(p95 {_f(b['latency_ms']['p95'], 0)} ms) against {_f(a['throughput_rps'], 1)} "
                f"req/s (p95 {_f(a['latency_ms']['p95'], 0)} ms) with 1 thread: under "
                f"concurrency the BLAS threads compete with the request threads, the event "
                f"loop and Chroma for the same 2 cores. Keep workers x threads <= cores, as "
                f"`app/gunicorn_conf.py` already does for the default (2 x 1)."
            )
        if (2, 1) in by and (2, 2) in by:
            a, b = by[(2, 1)], by[(2, 2)]
            findings.append(
                f"**Oversubscription across workers:** 2 workers x 2 threads (4 threads on 2 "
                f"cores) gives {_f(b['throughput_rps'], 1)} req/s, p95 "
                f"{_f(b['latency_ms']['p95'], 0)} ms, against {_f(a['throughput_rps'], 1)} "
                f"req/s, p95 {_f(a['latency_ms']['p95'], 0)} ms for 2 x 1. A `TORCH_THREADS` "
                f"set by hand in `.env` used to override the per-worker split; fixed in "
                f"3367a7e: app/gunicorn_conf.py caps it at cores // workers, with a warning."
            )
        targets.append(
            [
                "Load: zero errors (embedded"
                + (" and compose" if co.get("levels") else "")
                + ", all levels)",
                f"{errors_total} errors",
                _met(errors_total == 0),
            ]
        )
        parts.append("\n\n".join(text))
        # memory rows from load
        w_idle = em["memory_idle_warm"]
        mem_rows.append(
            [
                "API worker (embedded default), idle after warm-up, RSS / PSS each",
                " / ".join(f"{_f(x, 0)}" for x in w_idle["workers_rss_mb"])
                + " MB RSS; "
                + " / ".join(f"{_f(x, 0)}" for x in w_idle["workers_pss_mb"])
                + " MB PSS",
            ]
        )
        mem_rows.append(
            [
                "API worker, idle cold (before any request)",
                " / ".join(_f(x, 0) for x in em["memory_idle_cold"]["workers_rss_mb"]) + " MB RSS",
            ]
        )
        mem_rows.append(["gunicorn master", f"{_f(w_idle['master_rss_mb'], 0)} MB RSS"])
        mem_rows.append(
            [
                "API whole (master + 2 workers), peak under load (c up to 64)",
                f"{_f(em['memory_under_load_peak']['total_rss_mb'], 0)} MB RSS "
                f"(largest worker {_f(em['memory_under_load_peak']['max_worker_rss_mb'], 0)} MB)",
            ]
        )
        if co.get("levels"):
            for label, key in (
                ("idle after warm-up", "memory_idle_warm_mb"),
                ("peak under load", "memory_under_load_peak_mb"),
            ):
                stats = co.get(key, {})
                mem_rows.append(
                    [
                        f"compose stack, {label} (`docker stats`)",
                        ", ".join(f"{k} {_f(v, 0)} MB" for k, v in sorted(stats.items()))
                        + f"; total {_f(sum(stats.values()), 0)} MB",
                    ]
                )

    # -- ingest
    ing = s.get("ingest")
    if ing:
        chart_ingest(ing, charts / "ingest.png")
        rows = [
            [
                f"{r['cards']:,}",
                f"{r['chunks']:,}",
                _f(r["wall_s"], 1),
                _f(r["cards_per_s"], 1),
                _f(r["ms_per_card"], 1),
                f"{r['embed_s'] / r['wall_s'] * 100:.0f}%",
                f"{r['write_s'] / r['wall_s'] * 100:.0f}%",
                f"{r['verify_s'] / r['wall_s'] * 100:.0f}%",
                _f(r["chroma_rss_after_ingest_mb"], 0),
            ]
            for r in ing["sizes"]
        ]
        bs = ing.get("batch_sweep", {})
        erows = [[r["batch"], r["chunks"], _f(r["chunks_per_s"], 1)] for r in bs.get("embed", [])]
        wrows = [[r["batch"], r["rows"], _f(r["rows_per_s"], 0)] for r in bs.get("write", [])]
        spread = ing["per_card_spread"]
        parts.append(
            "## 3. Ingest scaling\n\n"
            "The app's own `ingest.pipeline.run_ingest` (validate, embed, versioned collection, "
            "verify, switch) against a Chroma server (`chroma run`, same pin) on 127.0.0.1, a "
            "fresh server per size. Synthetic corpora come from `bench.ingest_scaling."
            "expand_corpus`: card i is bundled card i mod 38 with its paragraphs rotated, a "
            "seeded subset of word swaps and a variant tag (deterministic, same length "
            "profile as the bundled cards). Store writes and verification are timed by "
            "wrapping `_write` and `_verify`.\n\n"
            + _table(
                [
                    "cards",
                    "chunks",
                    "wall s",
                    "cards/s",
                    "ms/card",
                    "embedding",
                    "store writes",
                    "verify",
                    "Chroma server RSS MB",
                ],
                rows,
            )
            + f"\n\nPer-card cost spread across sizes (max/min - 1): **{spread * 100:.0f}%**."
            + "\n\n![ingest](bench/ingest.png)\n\n"
            + f"Batch sizes (on the {bs.get('write', [{}])[0].get('rows', '?')}-row corpus; "
            f"Chroma's `get_max_batch_size()` here: {bs.get('max_batch_size')}):\n\n"
            + _table(["embedding batch", "chunks", "chunks/s"], erows)
            + "\n\n"
            + _table(["write batch", "rows", "rows/s"], wrows)
        )
        if erows and wrows:
            be = max(bs["embed"], key=lambda r: r["chunks_per_s"])
            bw = max(bs["write"], key=lambda r: r["rows_per_s"])
            parts.append(
                f"Fastest embedding batch here: {be['batch']} ({_f(be['chunks_per_s'], 0)} "
                f"chunks/s; the default `EMBEDDING_BATCH_SIZE` is 64). Fastest write batch: "
                f"{bw['batch']} ({_f(bw['rows_per_s'], 0)} rows/s); the pipeline writes "
                f"min(`get_max_batch_size()`, 1000) rows per call, which respects Chroma's "
                f"limit. Embedding is {rows[-1][5]} of the largest ingest, so batch "
                f"size for writes barely moves the total."
            )
        targets.append(
            [
                "Ingest: per-card cost flat within 25% from 38 to 10,000 cards"
                if not results.get("quick")
                else "Ingest: per-card cost flat within 25% (quick: small sizes only)",
                f"{spread * 100:.0f}% spread",
                _met(ing["target_flat_within_25pct"]),
            ]
        )
        findings.append(
            "**Card ids used to cap the corpus at 1,000 cards** (`^card-\\d{3}$`); fixed in "
            "3367a7e (`^card-\\d{3,6}$`). The synthetic corpora here still bypass the loader "
            "(`Card.model_construct`, ids `card-NNN-sNNNNN`) and feed `run_ingest` directly. "
            "**A 10,000-card build could not be verified** (one `get` of 36,594 rows exceeds "
            "the Chroma server's SQLite variable limit); fixed: builds are read in pages."
        )
        for r in ing["sizes"]:
            mem_rows.append(
                [
                    f"Chroma server after ingesting {r['cards']:,} cards ({r['chunks']:,} chunks)",
                    f"{_f(r['chroma_rss_after_ingest_mb'], 0)} MB RSS (empty: "
                    f"{_f(r['chroma_rss_empty_mb'], 0)} MB)",
                ]
            )

    # -- memory
    if mem_rows:
        text = "## 4. Memory\n\n" + _table(["what", "measured"], mem_rows)
        if ld and ing:
            em = ld["embedded"]
            worker = em["memory_under_load_peak"]["max_worker_rss_mb"]
            master = em["memory_idle_warm"]["master_rss_mb"]
            chroma_max = max(r["chroma_rss_after_ingest_mb"] for r in ing["sizes"])
            best_w = ld["sweep"]["best"]["workers"]
            workers = max(2, best_w)
            need = workers * worker + master + chroma_max + OS_RESERVE_MB
            text += (
                f"\n\nHeadroom on the 16 GB host with {workers} workers: {workers} x "
                f"{_f(worker, 0)} MB (peak worker RSS under load) + {_f(master, 0)} MB master "
                f"+ {_f(chroma_max, 0)} MB Chroma at the largest corpus + {OS_RESERVE_MB} MB "
                f"for the OS = **{_f(need, 0)} MB of {HOST_RAM_MB:,} MB** "
                f"({need / HOST_RAM_MB * 100:.0f}%). RSS counts shared pages in every "
                f"process, so this overstates. The compose limits (api 6 GB, chroma 4 GB) "
                f"are far above these numbers."
            )
            targets.append(
                [
                    "Memory: 16 GB host has headroom with the chosen workers",
                    f"{_f(need, 0)} MB needed",
                    _met(need < HOST_RAM_MB),
                ]
            )
        parts.append(text)

    # -- peer
    pe = s.get("peer")
    if pe:
        chart_peer(pe, charts / "peer.png")
        rows = []
        for name, label in (
            ("ours", "ours: `Retriever.search` (parent-document, ADR-0020)"),
            ("langchain", "LangChain `ParentDocumentRetriever`"),
        ):
            r = pe[name]
            rows.append(
                [
                    label,
                    _f(r["recall@1"], 3),
                    _f(r["recall@3"], 3),
                    _f(r["recall@5"], 3),
                    _f(r["mrr"], 3),
                    _f(r["latency_ms"]["p50"], 2),
                    _f(r["latency_ms"]["p95"], 2),
                    _f(r["build_s"], 1),
                ]
            )
        st = pe["settings"]
        parts.append(
            "## 5. Peer side by side\n\n"
            f"LangChain `ParentDocumentRetriever` (langchain-classic) with "
            f"`RecursiveCharacterTextSplitter(chunk_size={st['chunk_size']}, "
            f"chunk_overlap={st['chunk_overlap']})`, `langchain_chroma.Chroma` (cosine, "
            f"embedded, chromadb pin of the service), an `InMemoryStore` for parents, and "
            f"**our embedder** (`{st['embedding_model']}`, `app.embedding.get_embedder` behind a "
            f"`langchain_core.embeddings.Embeddings` adapter); parents are the same title + "
            f"text the service embeds; `search_kwargs={{'k': 40}}` child hits (our first "
            f"over-fetch for {st['depth']} parents). Both on the bundled corpus, in-process, "
            f"the golden set's {pe['ours']['n']} in-scope questions for recall, all 102 for "
            f"latency (after a warm-up pass).\n\n"
            + _table(
                [
                    "retriever",
                    "recall@1",
                    "recall@3",
                    "recall@5",
                    "MRR",
                    "p50 ms",
                    "p95 ms",
                    "index build s",
                ],
                rows,
            )
            + "\n\n![peer](bench/peer.png)"
        )
        targets.append(
            [
                "Peer: recall@k equal or better than LangChain",
                f"recall@5 {_f(pe['ours']['recall@5'], 3)} vs {_f(pe['langchain']['recall@5'], 3)}",
                _met(pe["targets"]["recall_equal_or_better"]),
            ]
        )
        targets.append(
            [
                "Peer: query latency equal or better than LangChain",
                f"p50 {_f(pe['ours']['latency_ms']['p50'], 2)} vs "
                f"{_f(pe['langchain']['latency_ms']['p50'], 2)} ms",
                _met(pe["targets"]["latency_equal_or_better"]),
            ]
        )

    summary_md = "## Targets\n\n" + _table(["target", "measured", "status"], targets)
    findings_md = "## Findings and fixes\n\n" + "\n".join(f"- {f}" for f in findings)
    doc = "\n\n".join([parts[0], summary_md, *parts[1:], findings_md]) + "\n"
    out.write_text(doc, encoding="utf-8")
