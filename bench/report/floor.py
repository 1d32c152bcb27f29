"""Section 1: latency against the floor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report import charts
from bench.report.format import Section, met, num, table

STEPS = (
    "screen",
    "embed",
    "vector_query",
    "bm25",
    "fusion",
    "dedupe_expand",
    "decide",
    "generate",
    "verify",
)
HYBRID_NOTE = " (RETRIEVAL_MODE=hybrid, in-process; default is dense)"

INTRO = (
    "## 1. Latency against the floor\n\n"
    "**The floor** is what no implementation of this design can avoid per question, "
    "measured without our code: one query embedding plus one raw Chroma `query` on the "
    'served collection with `include=["distances"]` and the same `n_results` as our '
    "first query ({n_results}), straight on `chromadb`, in the same run. The old definition "
    "(our own `embed` + `vector_query` steps, which included reading every matched row's "
    "metadata back) is shown beside it for one release. In-process timings use the app's "
    "own `Retriever.search` (`timings_ms`) and `Agent.ask` (state `timings_ms`) with the "
    "thread budget of one served worker ({threads} thread(s)), on the bundled corpus, "
    "{requests} calls after a warm-up pass. Then the same index served by gunicorn (2 "
    "uvicorn workers), one request at a time over a keep-alive connection; server-side "
    "step means come from `/metrics` (`rag_step_seconds`), scraped before and after each "
    "route's run, so **HTTP overhead = client latency - server pipeline time in the same "
    "run**. The machine is shared: to compare like with like, the floor is measured right "
    "before each request (same question, same moment), and ratios use the floor measured "
    "alongside.\n\n"
)


def _step_row(fl: dict[str, Any], step: str) -> list[Any]:
    ip = fl["in_process"]
    src = ip["ask_steps_ms"].get(step) or ip["search_steps_ms"].get(step)
    label = step
    if src is None and step in ("bm25", "fusion"):
        src = ip.get("hybrid_steps_ms", {}).get(step)
        label = step + HYBRID_NOTE if src is not None else step
    srv_s = fl["http"]["/api/search"]["server_step_means_ms"].get(step)
    srv_a = fl["http"]["/api/ask"]["server_step_means_ms"].get(step)
    if src is None and srv_a is None:
        return [step, "not measured", "", "", ""]
    return [
        label,
        num(src["p50"], 2) if src else "–",
        num(src["p95"], 2) if src else "–",
        num(srv_s, 2),
        num(srv_a, 2),
    ]


def _steps_table(fl: dict[str, Any]) -> str:
    ip = fl["in_process"]
    rows = [_step_row(fl, step) for step in STEPS]
    go, noop = ip["graph_overhead_ms"], ip["langgraph_noop_invoke_ms"]
    rows.append(
        ["LangGraph and agent bookkeeping (ask total - steps)"]
        + [num(go["p50"], 2), num(go["p95"], 2), "", ""]
    )
    rows.append(
        ["LangGraph alone (same graph shape, no-op nodes)"]
        + [num(noop["p50"], 2), num(noop["p95"], 2), "", ""]
    )
    paired = ip.get("langgraph_paired_ms")
    if paired:
        rows.append(
            ["LangGraph in this agent (ask - the same steps called without it, paired)"]
            + [num(paired["p50"], 2), num(paired["p95"], 2), "", ""]
        )
    assess = ip.get("emergency_assessment_ms")
    if assess:
        rows.append(
            ["emergency assessment alone (in the screen step; embedding excluded)"]
            + [num(assess["p50"], 2), num(assess["p95"], 2), "", ""]
        )
    floor, old = ip["floor_ms"], ip["old_floor_ms"]
    rows.append(["**floor = embedding + raw Chroma query (ids, distances)**"])
    rows[-1] += [num(floor["p50"], 2), num(floor["p95"], 2), "", ""]
    rows.append(["old floor definition = our embed + vector_query steps"])
    rows[-1] += [num(old["p50"], 2), num(old["p95"], 2), "", ""]
    head = ["step", "in-process p50 ms", "in-process p95 ms"]
    head += ["served /api/search mean ms", "served /api/ask mean ms"]
    return table(head, rows)


def _routes_table(fl: dict[str, Any]) -> str:
    rows = []
    for route in ("/api/search", "/api/ask"):
        h = fl["http"][route]
        lat, r = h["latency_ms"], fl["ratio_to_floor"][route]
        old = fl["ratio_to_old_floor"][route]["p50"]
        rows.append(
            [f"`{route}`", lat["n"], num(lat["p50"], 2), num(lat["p95"], 2), num(lat["p99"], 2)]
            + [num(h["floor_ms"]["p50"], 2)]
            + [f"{r['p50']:.2f}x / {r['p95']:.2f}x / {r['p99']:.2f}x", f"{old:.2f}x"]
            + [num(h["pipeline_mean_ms"], 2), num(h["http_overhead_mean_ms"], 2)]
        )
    head = ["route", "n", "p50 ms", "p95 ms", "p99 ms", "floor p50 ms alongside"]
    head += ["ratio to floor p50/p95/p99", "ratio to old floor p50"]
    return table(head + ["server pipeline mean ms", "HTTP overhead mean ms"], rows)


def _cold(fl: dict[str, Any]) -> tuple[str, list[str]]:
    cold = fl["http"].get("cold_first_pass_ask_ms")
    if not cold:
        return "", []
    text = (
        f"Cold start: the first pass of the golden set on a freshly started service "
        f"(`/api/ask`, one connection, so mostly one worker) has p50 {num(cold['p50'], 1)} ms, "
        f"p95 {num(cold['p95'], 1)} ms, p99 {num(cold['p99'], 1)} ms (`Resources.warm()` loads "
        f"the build and embeds the cards' sentences when a worker starts). The table above is "
        f"after warm-up."
    )
    return text, []


def _findings(ip: dict[str, Any]) -> list[str]:
    go, noop = ip["graph_overhead_ms"]["p50"], ip["langgraph_noop_invoke_ms"]["p50"]
    audit = ip["audit"]
    paired = ip.get("langgraph_paired_ms", {}).get("p50")
    lg = (
        f"**LangGraph's cost per ask: {num(paired, 2)} ms p50** in-process: an ask through "
        f"the graph minus the same steps called in sequence without it, back to back on the "
        f"same question ({paired / ip['ask_total_ms']['p50'] * 100:.0f}% of the in-process "
        f"ask, {paired / ip['floor_ms']['p50']:.2f}x the floor). A compiled graph of the same "
        f"shape with no-op nodes costs {num(noop, 2)} ms; the rest is the library handling "
        f"the real state (its channels, task and checkpoint records per node). The graph "
        f"runs four nodes, not six: the steps after the decision share one node each way "
        f"(app/agent/graph.py). LangGraph stays (issue 17). Ask total minus its timed steps "
        f"is {num(go, 2)} ms (LangGraph plus the untimed parts of the nodes)."
        if paired is not None
        else f"**LangGraph and agent bookkeeping per ask: {num(go, 2)} ms p50** (ask total "
        f"minus its timed steps); a no-op graph of the same shape costs {num(noop, 2)} ms."
    )
    return [
        lg,
        f"**Audit of repeated work:** during {ip['requests']} in-process calls, "
        f"{audit['chroma_client_created']} Chroma clients, {audit['embedder_created']} "
        f"embedders and {audit.get('builds_loaded', '?')} build snapshots were created: "
        f"clients, the model and the cards of the active build are per process, not per "
        f"request.",
    ]


def _http_floor(fl: dict[str, Any]) -> tuple[str, list[str]]:
    """The HTTP stack's own round trip, beside the floor: how much of each target it uses."""
    rt = fl["http"].get("http_round_trip_ms")
    if not rt:
        return "", []
    base = fl["http"]["/api/search"]["floor_ms"]["p50"]
    both = base + rt["p50"]
    text = (
        f"HTTP alone: `GET /healthz` on the same keep-alive connection, same client, no body, "
        f"no thread, no store: p50 {num(rt['p50'], 2)} ms, p95 {num(rt['p95'], 2)} ms. The "
        f"floor plus this round trip is {num(both, 2)} ms, {both / base:.2f}x the floor, "
        f"before any work of ours."
    )
    finding = (
        f"**What the HTTP stack costs:** a request that does nothing (`GET /healthz`) takes "
        f"{num(rt['p50'], 2)} ms p50 through the client, uvicorn, the middlewares and the "
        f"routing, {rt['p50'] / base:.2f}x the floor by itself; `/api/search` over HTTP is "
        f"{num(fl['http']['/api/search']['latency_ms']['p50'], 2)} ms against "
        f"{num(both, 2)} ms for floor + round trip. The floor is measured in-process, so a "
        f"served route's ratio starts at {both / base:.2f}x."
    )
    return text, [finding]


def render(fl: dict[str, Any], charts_dir: Path) -> Section:
    ip = fl["in_process"]
    charts.floor(fl, charts_dir / "floor.png")
    cold_text, cold_findings = _cold(fl)
    http_text, http_findings = _http_floor(fl)
    markdown = (
        INTRO.format(threads=ip["threads"], requests=ip["requests"], n_results=ip["n_results"])
        + _steps_table(fl)
        + "\n\n"
        + _routes_table(fl)
        + (f"\n\n{http_text}" if http_text else "")
        + "\n\n![floor](bench/floor.png)\n"
        + (f"\n\n{cold_text}" if cold_text else "")
    )
    sr, ar = fl["ratio_to_floor"]["/api/search"]["p50"], fl["ratio_to_floor"]["/api/ask"]["p50"]
    t = fl["targets"]
    targets = [
        [f"`/api/search` p50 <= {t['search_p50_within']}x the floor", f"{sr:.2f}x"],
        [f"`/api/ask` (extractive) p50 <= {t['ask_p50_within']}x the floor", f"{ar:.2f}x"],
    ]
    targets[0] += [met(t["search_met"]), "" if t["search_met"] else _search_miss(fl)]
    targets[1] += [met(t["ask_met"]), "" if t["ask_met"] else _ask_miss(fl)]
    return Section(markdown, targets, cold_findings + http_findings + _findings(ip))


def _search_miss(fl: dict[str, Any]) -> str:
    """Where /api/search's time above the floor goes, from this run's numbers."""
    h, target = fl["http"]["/api/search"], fl["targets"]["search_p50_within"]
    floor_p50, rt = h["floor_ms"]["p50"], fl["http"].get("http_round_trip_ms", {}).get("p50")
    bare = f", of which a request that does nothing takes {num(rt, 2)} ms" if rt else ""
    return (
        f"needs <= {num(target * floor_p50, 2)} ms, took {num(h['latency_ms']['p50'], 2)}: "
        f"the route's steps (embedding, query, dedupe) take {num(h['pipeline_mean_ms'], 2)} ms "
        f"served (mean) against the in-process floor's {num(floor_p50, 2)}; HTTP and the route "
        f"around them (body validation, personal-data strip, thread hop, metrics) "
        f"{num(h['http_overhead_mean_ms'], 2)} ms{bare}"
    )


def _ask_miss(fl: dict[str, Any]) -> str:
    """What the ask does beyond the floor, from this run's in-process numbers."""
    ip, target = fl["in_process"], fl["targets"]["ask_p50_within"]
    floor_p50 = fl["http"]["/api/ask"]["floor_ms"]["p50"]
    steps = ip["ask_steps_ms"]
    lg = ip.get("langgraph_paired_ms", ip["graph_overhead_ms"])["p50"]
    return (
        f"needs <= {num(target * floor_p50, 2)} ms served; in-process alone the ask takes "
        f"{num(ip['ask_total_ms']['p50'], 2)} ms p50: LangGraph {num(lg, 2)} ms (kept, issue "
        f"17), the safety screen {num(steps['screen']['p50'], 2)} ms (the query embedding the "
        f"floor also pays, up to two more texts, emergency rules and neighbours, personal "
        f"data), then retrieval, the decision, the answer and its verification"
    )
