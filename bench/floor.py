"""Latency against the physical floor.

In-process (the app's own Retriever and Agent, same thread budget as one served worker):
per-step timings from `Retrieval.timings_ms` and the agent state's `timings_ms`.
Over HTTP (gunicorn, default settings): client-side p50/p95/p99 of /api/search and
/api/ask, one request at a time, plus the server's own per-step means from /metrics
scraped before and after each phase, so HTTP overhead = HTTP latency - pipeline time
measured in the same run.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from bench.common import CORES, QUICK, log, summary
from bench.served import sequential, served, step_means_ms, step_totals
from evaluation.golden import load_golden

PIPELINE_STEPS = ("embed", "vector_query", "bm25", "fusion", "dedupe_expand")


def questions() -> list[str]:
    return [c.question for c in load_golden()]


def retrieval_mode_present() -> bool:
    from app.core.config import Settings

    return "retrieval_mode" in Settings.model_fields


def _audit_counts() -> tuple[dict[str, int], Any]:
    """Count chroma client and embedder constructions (they must not happen per request)."""
    import app.embedding as emb
    import app.store.index as index

    counts = {"chroma_client_created": 0, "embedder_created": 0}
    original_client = index.make_client
    originals = {
        "use": emb.UniversalSentenceEncoderEmbedder.__init__,
        "st": emb.SentenceTransformerEmbedder.__init__,
    }

    def client(*a: Any, **k: Any) -> Any:
        counts["chroma_client_created"] += 1
        return original_client(*a, **k)

    def wrap(init: Any) -> Any:
        def inner(self: Any, *a: Any, **k: Any) -> None:
            counts["embedder_created"] += 1
            init(self, *a, **k)

        return inner

    index.make_client = client  # type: ignore[assignment]
    emb.UniversalSentenceEncoderEmbedder.__init__ = wrap(originals["use"])  # type: ignore[method-assign]
    emb.SentenceTransformerEmbedder.__init__ = wrap(originals["st"])  # type: ignore[method-assign]

    def restore() -> None:
        index.make_client = original_client  # type: ignore[assignment]
        emb.UniversalSentenceEncoderEmbedder.__init__ = originals["use"]  # type: ignore[method-assign]
        emb.SentenceTransformerEmbedder.__init__ = originals["st"]  # type: ignore[method-assign]

    return counts, restore


def in_process(base: Any, chroma_path: Path, threads: int, rounds: int) -> dict[str, Any]:
    from app.agent.generators import make_generator
    from app.agent.graph import make_agent
    from app.embedding import get_embedder
    from app.retrieval.retriever import Retriever
    from app.store.index import IndexStore

    settings = base.model_copy(
        update={"chroma_mode": "embedded", "chroma_path": chroma_path, "torch_threads": threads}
    )
    embedder = get_embedder(settings)
    store = IndexStore(settings)
    retriever = Retriever(store, embedder, settings)
    agent = make_agent(retriever, make_generator(settings, embedder), settings)
    qs = questions()
    for q in qs:  # warm-up: caches (sentence vectors), HNSW pages, code paths
        agent.ask(q)
    counts, restore = _audit_counts()
    search_steps: dict[str, list[float]] = {}
    floor: list[float] = []
    search_total: list[float] = []
    ask_steps: dict[str, list[float]] = {}
    ask_total: list[float] = []
    graph_overhead: list[float] = []
    try:
        for _ in range(rounds):
            for q in qs:
                t0 = time.perf_counter()
                res = retriever.search(q)
                search_total.append((time.perf_counter() - t0) * 1000)
                for k, v in res.timings_ms.items():
                    search_steps.setdefault(k, []).append(v)
                floor.append(res.timings_ms["embed"] + res.timings_ms["vector_query"])
            for q in qs:
                t0 = time.perf_counter()
                state = agent.ask(q)
                total = (time.perf_counter() - t0) * 1000
                ask_total.append(total)
                timings = state.get("timings_ms", {})
                for k, v in timings.items():
                    ask_steps.setdefault(k, []).append(v)
                graph_overhead.append(total - sum(timings.values()))
    finally:
        restore()
    hybrid: dict[str, Any] = {}
    if retrieval_mode_present():
        conf = settings.model_copy(update={"retrieval_mode": "hybrid"})
        hybrid_retriever = Retriever(store, embedder, conf)
        for q in qs:
            hybrid_retriever.search(q)
        steps: dict[str, list[float]] = {}
        for _ in range(rounds):
            for q in qs:
                for k, v in hybrid_retriever.search(q).timings_ms.items():
                    steps.setdefault(k, []).append(v)
        hybrid = {k: summary(v) for k, v in steps.items()}
    return {
        "hybrid_steps_ms": hybrid,
        "threads": threads,
        "requests": len(search_total) + len(ask_total),
        "floor_ms": summary(floor),
        "search_steps_ms": {k: summary(v) for k, v in search_steps.items()},
        "search_total_ms": summary(search_total),
        "ask_steps_ms": {k: summary(v) for k, v in ask_steps.items()},
        "ask_total_ms": summary(ask_total),
        "graph_overhead_ms": summary(graph_overhead),
        "audit": counts,
    }


def over_http(chroma_path: Path, workers: int, n: int) -> dict[str, Any]:
    qs = questions()
    bodies = [{"question": q} for q in qs]
    out: dict[str, Any] = {"workers": workers}
    with served(chroma_path, workers) as service:
        # Cold start: the first golden pass on a fresh worker (its sentence-vector cache
        # is empty), then warm every worker with concurrent connections before measuring.
        cold = sequential(service.url, "/api/ask", bodies, len(bodies))
        out["cold_first_pass_ask_ms"] = summary(cold)
        warm_up(service.url, bodies, workers)
        for path in ("/api/search", "/api/ask"):
            before = step_totals(service.url)
            lat = sequential(service.url, path, bodies, n)
            after = step_totals(service.url)
            means = step_means_ms(before, after)
            out[path] = {
                "latency_ms": summary(lat),
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


def run(workdir: Path, chroma_path: Path, settings: Any) -> dict[str, Any]:
    workers = 2  # the default WEB_CONCURRENCY
    threads = max(1, CORES // workers)  # what app/gunicorn_conf.py gives each worker
    rounds = 1 if QUICK else 3
    n_http = 102 if QUICK else 306
    log(f"floor: in-process, {threads} thread(s), {rounds} round(s) of the golden set")
    inproc = in_process(settings, chroma_path, threads, rounds)
    log(f"floor: over HTTP, {workers} workers, {n_http} sequential requests per route")
    http = over_http(chroma_path, workers, n_http)
    floor_p50 = inproc["floor_ms"]["p50"]
    ratios = {
        path: {q: http[path]["latency_ms"][q] / floor_p50 for q in ("p50", "p95", "p99")}
        for path in ("/api/search", "/api/ask")
    }
    return {
        "retrieval_mode_present": retrieval_mode_present(),
        "in_process": inproc,
        "http": http,
        "ratio_to_floor": ratios,
        "targets": {
            "search_p50_within_1.5x": ratios["/api/search"]["p50"] <= 1.5,
            "ask_p50_within_2.5x": ratios["/api/ask"]["p50"] <= 2.5,
        },
    }
