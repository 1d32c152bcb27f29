"""Latency against the floor.

The floor (issue 17) does not depend on our code: one query embedding plus one raw
Chroma `query` on the served collection with `include=["distances"]` and the same
`n_results` as our first query, measured in-process in the same run. The old definition
(our own `embed` + `vector_query` steps) is reported beside it.

In-process (the app's own Retriever and Agent, same thread budget as one served worker):
per-step timings from `Retrieval.timings_ms` and the agent state's `timings_ms`, and the
cost of LangGraph itself (the same graph shape with no-op nodes, and the real ask minus the
same steps called in sequence without it, back to back). Over HTTP (gunicorn,
default settings): client-side p50/p95/p99 of /api/search and /api/ask, one request at a
time, plus the server's own per-step means from /metrics scraped before and after each
phase, so HTTP overhead = HTTP latency - pipeline time measured in the same run.
"""

from __future__ import annotations

import statistics
import time
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bench.common import CORES, QUICK, log, summary
from bench.served import round_trips, sequential, served, step_means_ms, step_totals
from evaluation.golden import load_golden


def questions() -> list[str]:
    return [c.question for c in load_golden()]


def _audit_counts() -> tuple[dict[str, int], Any]:
    """Count Chroma clients, embedders and build loads while measuring: none of them may
    happen per request."""
    import app.embedding as emb
    import app.store.calls as calls
    from app.store.snapshot import BuildSnapshot

    counts = {"chroma_client_created": 0, "embedder_created": 0, "builds_loaded": 0}
    saved_client, saved_load = calls.make_client, BuildSnapshot.from_rows
    embedders_before = len(emb._cache)

    def client(*a: Any, **k: Any) -> Any:
        counts["chroma_client_created"] += 1
        return saved_client(*a, **k)

    def load(*a: Any, **k: Any) -> Any:
        counts["builds_loaded"] += 1
        return saved_load(*a, **k)

    calls.make_client = client
    BuildSnapshot.from_rows = load  # type: ignore[method-assign]

    def restore() -> None:
        calls.make_client = saved_client
        BuildSnapshot.from_rows = saved_load  # type: ignore[method-assign]
        counts["embedder_created"] = len(emb._cache) - embedders_before

    return counts, restore


class RawFloor:
    """One embedding + one raw Chroma query (ids and distances), straight on chromadb, on
    the collection the service serves. Calling it times one question, in ms."""

    def __init__(self, settings: Any, embedder: Any, n_results: int):
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        client = chromadb.PersistentClient(
            path=str(settings.chroma_path), settings=ChromaSettings(anonymized_telemetry=False)
        )
        pointer = client.get_collection(f"{settings.collection_prefix}-active").metadata
        self.collection = client.get_collection(str(pointer["collection"]), embedding_function=None)
        self.embedder, self.n_results = embedder, n_results

    def __call__(self, question: str) -> float:
        t0 = time.perf_counter()
        v = self.embedder.embed([question])[0].tolist()
        self.collection.query(query_embeddings=[v], n_results=self.n_results, include=["distances"])
        return (time.perf_counter() - t0) * 1000


def langgraph_cost(rounds: int) -> list[float]:
    """ms per invoke of a compiled StateGraph with the agent's shape (app.agent.graph) and
    no-op nodes: what LangGraph itself costs per question."""
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph

    class S(TypedDict, total=False):
        a: int
        b: int

    g = StateGraph(S)
    for name in ("screen", "retrieve", "decide", "answer", "decline"):
        g.add_node(name, lambda s: {"b": 1})
    g.add_edge(START, "screen")
    g.add_edge("screen", "retrieve")
    g.add_edge("retrieve", "decide")
    g.add_conditional_edges("decide", lambda s: "answer", ["answer", "decline"])
    g.add_edge("answer", END)
    g.add_edge("decline", END)
    graph = g.compile()
    for _ in range(50):
        graph.invoke({"a": 1})
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        graph.invoke({"a": 1})
        out.append((time.perf_counter() - t0) * 1000)
    return out


class Direct:
    """The agent's steps called in sequence, without LangGraph: the same functions, the same
    state updates. An ask through the graph minus this, measured back to back on the same
    question, is what LangGraph costs in this agent (state channels and task bookkeeping
    with the real state, not only with no-op nodes)."""

    def __init__(self, agent: Any):
        self.deps, self.top_k = agent.deps, agent.deps.settings.top_k

    def __call__(self, question: str) -> dict[str, Any]:
        from app.agent import graph, nodes
        from app.agent.screen import screen

        runtime = SimpleNamespace(context=self.deps)
        state: dict[str, Any] = {"question": question, "top_k": self.top_k, "history": []}
        for step in (screen, nodes.retrieve, nodes.decide):
            state.update(step(state, runtime))  # type: ignore[arg-type]
        if nodes.route(state) == "generate":  # type: ignore[arg-type]
            state.update(graph.answer(state, runtime))  # type: ignore[arg-type]
        else:
            state.update(graph.decline(state))  # type: ignore[arg-type]
        return state


def _timed_runs(
    retriever: Any, agent: Any, floor: RawFloor, qs: list[str], rounds: int
) -> dict[str, Any]:
    """Our search and ask, each question right after a floor measurement of the same
    question: the floor and what is compared with it share the machine's load."""
    runs: dict[str, Any] = {"search_steps": {}, "ask_steps": {}, "old_floor": [], "floor": []}
    runs.update(search_total=[], ask_total=[], graph_overhead=[], graph_paired=[])
    direct = Direct(agent)
    for _ in range(rounds):
        for q in qs:
            runs["floor"].append(floor(q))
            t0 = time.perf_counter()
            res = retriever.search(q)
            runs["search_total"].append((time.perf_counter() - t0) * 1000)
            for k, v in res.timings_ms.items():
                runs["search_steps"].setdefault(k, []).append(v)
            runs["old_floor"].append(res.timings_ms["embed"] + res.timings_ms["vector_query"])
        for q in qs:
            runs["floor"].append(floor(q))
            t0 = time.perf_counter()
            state = agent.ask(q)
            total = (time.perf_counter() - t0) * 1000
            runs["ask_total"].append(total)
            timings = state.get("timings_ms", {})
            for k, v in timings.items():
                runs["ask_steps"].setdefault(k, []).append(v)
            runs["graph_overhead"].append(total - sum(timings.values()))
            t0 = time.perf_counter()
            direct(q)
            runs["graph_paired"].append(total - (time.perf_counter() - t0) * 1000)
    return runs


def _assessment(agent: Any, embedder: Any, qs: list[str], rounds: int) -> dict[str, Any]:
    """The emergency assessment alone (rules, exemplar neighbours, classifier), each
    question's vector computed beforehand: what the screen step costs besides embedding
    (issue 25's target: 1 ms p50)."""
    from app.core.text import fold

    detector = agent.deps.detector
    vectors = embedder.embed([fold(q) for q in qs])
    for q, v in zip(qs, vectors, strict=True):
        detector.assess(q, v)
    out: list[float] = []
    for _ in range(rounds):
        for q, v in zip(qs, vectors, strict=True):
            t0 = time.perf_counter()
            detector.assess(q, v)
            out.append((time.perf_counter() - t0) * 1000)
    return summary(out)


def _hybrid_steps(store: Any, embedder: Any, settings: Any, qs: list[str], rounds: int) -> Any:
    from app.retrieval.retriever import Retriever

    hybrid = Retriever(store, embedder, settings.model_copy(update={"retrieval_mode": "hybrid"}))
    for q in qs:
        hybrid.search(q)
    steps: dict[str, list[float]] = {}
    for _ in range(rounds):
        for q in qs:
            for k, v in hybrid.search(q).timings_ms.items():
                steps.setdefault(k, []).append(v)
    return {k: summary(v) for k, v in steps.items()}


def in_process(
    base: Any, chroma_path: Path, threads: int, rounds: int
) -> tuple[dict[str, Any], RawFloor]:
    from app.composition import Resources

    settings = base.model_copy(
        update={"chroma_mode": "embedded", "chroma_path": chroma_path, "torch_threads": threads}
    )
    resources = Resources.create(settings)  # the served agent, built as a worker builds it
    resources.warm()
    embedder, store = resources.embedder, resources.store
    retriever, agent = resources.retriever, resources.agent
    qs = questions()
    for q in qs:  # warm-up: caches (sentence vectors, the build), HNSW pages, code paths
        agent.ask(q)
    n_results = retriever.search(qs[0]).fetched
    floor = RawFloor(settings, embedder, n_results)
    for q in qs:
        floor(q)
    counts, restore = _audit_counts()
    try:
        runs = _timed_runs(retriever, agent, floor, qs, rounds)
    finally:
        restore()
    inproc = {
        "hybrid_steps_ms": _hybrid_steps(store, embedder, settings, qs, rounds),
        "emergency_assessment_ms": _assessment(agent, embedder, qs, rounds),
        "threads": threads,
        "requests": len(runs["search_total"]) + len(runs["ask_total"]),
        "n_results": n_results,
        "floor_ms": summary(runs["floor"]),
        "old_floor_ms": summary(runs["old_floor"]),
        "search_steps_ms": {k: summary(v) for k, v in runs["search_steps"].items()},
        "search_total_ms": summary(runs["search_total"]),
        "ask_steps_ms": {k: summary(v) for k, v in runs["ask_steps"].items()},
        "ask_total_ms": summary(runs["ask_total"]),
        "graph_overhead_ms": summary(runs["graph_overhead"]),
        "langgraph_noop_invoke_ms": summary(langgraph_cost(300 * rounds)),
        "langgraph_paired_ms": summary(runs["graph_paired"]),
        "audit": counts,
    }
    return inproc, floor


def _floor_into(out: list[float], floor: RawFloor, qs: list[str], i: int) -> None:
    out.append(floor(qs[i % len(qs)]))


def over_http(chroma_path: Path, workers: int, n: int, floor: RawFloor) -> dict[str, Any]:
    qs = questions()
    bodies = [{"question": q} for q in qs]
    out: dict[str, Any] = {"workers": workers}
    with served(chroma_path, workers) as service:
        # Cold start: the first golden pass on a fresh worker, then warm every worker with
        # concurrent connections before measuring.
        cold = sequential(service.url, "/api/ask", bodies, len(bodies))
        out["cold_first_pass_ask_ms"] = summary(cold)
        warm_up(service.url, bodies, workers)
        out["http_round_trip_ms"] = summary(round_trips(service.url, "/healthz", n))
        for path in ("/api/search", "/api/ask"):
            before = step_totals(service.url)
            floors: list[float] = []
            # Each request right after a floor measurement of its question (same load).
            lat = sequential(service.url, path, bodies, n, partial(_floor_into, floors, floor, qs))
            after = step_totals(service.url)
            means = step_means_ms(before, after)
            out[path] = {
                "latency_ms": summary(lat),
                "floor_ms": summary(floors),
                "server_step_means_ms": means,
                "pipeline_mean_ms": sum(means.values()),
                "http_overhead_mean_ms": statistics.fmean(lat) - sum(means.values()),
            }
    return out


def warm_up(url: str, bodies: list[dict[str, Any]], workers: int) -> None:
    """Concurrent traffic so that every worker sees every golden question (bounded)."""
    from bench.loadgen import run_load

    run_load(url, "/api/ask", bodies, 2 * workers, 4.0 if QUICK else 8.0)
    run_load(url, "/api/search", bodies, 2 * workers, 2.0)


SEARCH_TARGET, ASK_TARGET = 1.3, 2.0  # x the floor, p50 (issue 17)


def run(workdir: Path, chroma_path: Path, settings: Any) -> dict[str, Any]:
    workers = 2  # the default WEB_CONCURRENCY
    threads = max(1, CORES // workers)  # what app/gunicorn_conf.py gives each worker
    rounds = 1 if QUICK else 3
    n_http = 102 if QUICK else 306
    log(f"floor: in-process, {threads} thread(s), {rounds} round(s) of the golden set")
    inproc, floor = in_process(settings, chroma_path, threads, rounds)
    log(f"floor: over HTTP, {workers} workers, {n_http} sequential requests per route")
    http = over_http(chroma_path, workers, n_http, floor)
    ratios, old_ratios = {}, {}
    for path in ("/api/search", "/api/ask"):
        lat, base = http[path]["latency_ms"], http[path]["floor_ms"]["p50"]
        ratios[path] = {q: lat[q] / base for q in ("p50", "p95", "p99")}
        old_ratios[path] = {"p50": lat["p50"] / inproc["old_floor_ms"]["p50"]}
    return {
        "in_process": inproc,
        "http": http,
        "ratio_to_floor": ratios,
        "ratio_to_old_floor": old_ratios,
        "targets": {
            "search_p50_within": SEARCH_TARGET,
            "ask_p50_within": ASK_TARGET,
            "search_met": ratios["/api/search"]["p50"] <= SEARCH_TARGET,
            "ask_met": ratios["/api/ask"]["p50"] <= ASK_TARGET,
        },
    }
