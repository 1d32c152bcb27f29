"""Ingest scaling: the bundled corpus, then synthetic corpora of ~1,000 and ~10,000 cards
from a deterministic expander, through the app's own `run_ingest` against a Chroma server
on loopback (the production store mode). Chroma server RSS at each size. A batch-size
sweep (embedding and store writes) on the 1,000-card corpus."""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.common import LOOPBACK, QUICK, log, proc_tree_memory, summary
from evaluation.service import free_port

# Words swapped by the expander (pt-BR, same grammatical role), so synthetic cards differ
# in wording, not only in paragraph order.
SWAPS = [
    ("médico", "profissional de saúde"),
    ("remédio", "medicamento"),
    ("comprimido", "tablete"),
    ("orientação", "recomendação"),
    ("costuma", "tende a"),
    ("importante", "essencial"),
    ("sempre", "de forma constante"),
    ("avise", "informe"),
]


def expand_corpus(cards: list[Any], n: int) -> list[Any]:
    """n cards from the bundled ones, deterministically: card i is a variant of bundled
    card i mod len(cards), with its paragraphs rotated, a seeded subset of word swaps and a
    variant tag in the title and text. Ids `card-NNN-sNNNNN` (the corpus loader's id
    pattern, card-\\d{3}, cannot name more than 1,000 cards; see the report)."""
    out = []
    for i in range(n):
        base = cards[i % len(cards)]
        if i < len(cards):
            out.append(base)
            continue
        rng = random.Random(i)
        paras = [p for p in base.text.split("\n\n") if p.strip()]
        shift = i // len(cards) % max(len(paras), 1)
        paras = paras[shift:] + paras[:shift]
        text = "\n\n".join(paras)
        for a, b in SWAPS:
            if rng.random() < 0.5:
                text = text.replace(a, b)
        tag = f"variante {i // len(cards)}"
        variant = {"id": f"{base.id}-s{i:05d}", "title": f"{base.title} ({tag})"}
        out.append(base.model_copy(update={**variant, "text": f"{text}\n\n({tag}, caso {i}.)"}))
    return out


@contextmanager
def chroma_server(path: Path) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """`chroma run` on a free loopback port (same chromadb pin as the service)."""
    import httpx

    port = free_port()
    chroma = Path(sys.executable).with_name("chroma")
    log_file = (path.parent / f"chroma-{port}.log").open("wb")
    proc = subprocess.Popen(
        [str(chroma), "run", "--host", LOOPBACK, "--port", str(port), "--path", str(path)],
        stdout=log_file,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"chroma run exited early (log {log_file.name})")
            try:
                if httpx.get(f"http://{LOOPBACK}:{port}/api/v2/heartbeat", timeout=2).is_success:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.3)
        else:
            raise RuntimeError("chroma server did not start in 60 s")
        yield port, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log_file.close()


def _rss(proc: subprocess.Popen[bytes]) -> float:
    return sum(m.rss_mb for m in proc_tree_memory(proc.pid).values())


def ingest_once(settings: Any, corpus: Any) -> dict[str, Any]:
    """run_ingest on an in-memory corpus (the loader is bypassed: ids of synthetic cards
    do not name files)."""
    import ingest.pipeline as pipeline
    from app.embedding import get_embedder
    from app.store.index import IndexStore

    original = pipeline.load_corpus
    pipeline.load_corpus = lambda *_args: corpus
    try:
        store = IndexStore(settings)
        report = pipeline.run_ingest(settings, get_embedder(settings), store, clean=True)
        batch = min(store.max_batch_size(), pipeline.WRITE_BATCH)
    finally:
        pipeline.load_corpus = original
    # The banks (app.banks) are a cost per store, not per card: most of them are the same
    # for every size (stored once, then found), so they are reported apart.
    build_s = report.seconds - report.banks_seconds
    return {
        "cards": report.cards,
        "chunks": report.chunks,
        "wall_s": build_s,
        "banks_s": report.banks_seconds,
        "banks_embedded": report.banks_embedded,
        "embed_s": report.embed_seconds,
        "write_s": report.write_seconds,
        "verify_s": report.verify_seconds,
        "other_s": build_s - report.embed_seconds - report.write_seconds - report.verify_seconds,
        "cards_per_s": report.cards / build_s,
        "ms_per_card": build_s / report.cards * 1000,
        "write_batch": batch,
        "embedding_batch": settings.embedding_batch_size,
    }


def batch_sweep(settings: Any, rows: list[Any], port: int) -> dict[str, Any]:
    """Embedding throughput by batch size; write throughput by write batch size."""
    from app.embedding import get_embedder
    from app.store.index import IndexStore

    embedder = get_embedder(settings)
    texts = [r.document for r in rows]
    sample = texts[: 256 if QUICK else 1024]
    embed_rows = []
    for b in (8, 32, 64, 256):
        t = time.perf_counter()
        for i in range(0, len(sample), b):
            embedder.embed(sample[i : i + b])
        s = time.perf_counter() - t
        embed_rows.append({"batch": b, "chunks": len(sample), "chunks_per_s": len(sample) / s})
    vectors = [v.tolist() for v in embedder.embed(texts)]
    store = IndexStore(settings)
    max_batch = store.max_batch_size()
    write_rows = []
    for b in sorted({50, 250, 1000, min(max_batch, 5000)}):
        if b > max_batch:
            continue
        name = f"bench-batch-{b}"
        store.create_version(name, {"purpose": "write batch sweep"})
        t = time.perf_counter()
        store.write_rows(name, rows, vectors, b)
        s = time.perf_counter() - t
        store.delete_collection(name)
        write_rows.append({"batch": b, "rows": len(rows), "rows_per_s": len(rows) / s})
    return {"max_batch_size": max_batch, "embed": embed_rows, "write": write_rows, "port": port}


def api_with_build(path: Path, port: int, prefix: str) -> dict[str, Any]:
    """Memory of the API (gunicorn, 2 workers) once each worker has loaded the build,
    its time to ready, and /api/search latency over that build."""
    from bench.floor import questions
    from bench.served import sequential, service_memory, wait_ready
    from evaluation.service import Service

    env = {"CHROMA_MODE": "http", "CHROMA_HOST": LOOPBACK, "CHROMA_PORT": str(port)}
    env.update(COLLECTION_PREFIX=prefix, WEB_CONCURRENCY="2", RATE_LIMIT_PER_MINUTE="0")
    service = Service(path.parent / "api-unused", **env)
    started = time.monotonic()
    service.start(timeout_s=600)
    try:
        wait_ready(service.url, timeout_s=600)
        ready_s = time.monotonic() - started
        idle = service_memory(service)
        bodies = [{"question": q} for q in questions()]
        sequential(service.url, "/api/ask", bodies, len(bodies))
        search = sequential(service.url, "/api/search", bodies, len(bodies))
        return {
            "ready_s": ready_s,
            "memory_idle": idle,
            "memory_after_requests": service_memory(service),
            "search_ms": summary(search),
        }
    finally:
        service.stop()


def run(workdir: Path, base: Any) -> dict[str, Any]:
    import logging

    from ingest.corpus import load_corpus
    from ingest.pipeline import build_rows

    logging.getLogger("ingest").setLevel(logging.WARNING)
    for store_log in ("app.store.builds", "app.store.lock", "app.store.reads"):
        logging.getLogger(store_log).setLevel(logging.WARNING)
    bundled = load_corpus(base.corpus_dir).cards
    sizes = [len(bundled), 200] if QUICK else [len(bundled), 1000, 10000]
    rows: list[dict[str, Any]] = []
    sweep: dict[str, Any] = {}
    api: dict[str, Any] = {}
    for n in sizes:
        corpus_cards = expand_corpus(bundled, n)
        from ingest.corpus import Corpus

        corpus = Corpus.model_construct(cards=corpus_cards, corpus_hash=f"bench-{n}")
        path = Path(tempfile.mkdtemp(prefix=f"chroma-{n}-", dir=workdir))
        with chroma_server(path) as (port, proc):
            rss_empty = _rss(proc)
            settings = base.model_copy(
                update={
                    "chroma_mode": "http",
                    "chroma_host": LOOPBACK,
                    "chroma_port": port,
                    "collection_prefix": f"bench{n}",
                }
            )
            log(f"ingest: {n} cards into a Chroma server on {LOOPBACK}:{port}")
            res = ingest_once(settings, corpus)
            res["chroma_rss_empty_mb"] = rss_empty
            res["chroma_rss_after_ingest_mb"] = _rss(proc)
            log(
                f"  {res['chunks']} chunks, {res['wall_s']:.1f} s, {res['ms_per_card']:.1f} ms/card"
                f" (embed {res['embed_s']:.1f} s, write {res['write_s']:.1f} s, "
                f"verify {res['verify_s']:.1f} s); "
                f"chroma RSS {res['chroma_rss_after_ingest_mb']:.0f} MB"
            )
            rows.append(res)
            if n == sizes[1]:
                log("ingest: batch-size sweep")
                sweep = batch_sweep(settings, build_rows(corpus, settings), port)
            if n == sizes[-1]:
                log(f"ingest: the API serving the {n:,}-card build (2 workers, http store)")
                api = api_with_build(path, port, f"bench{n}")
                api["chroma_rss_mb"] = _rss(proc)
    per_card = [r["ms_per_card"] for r in rows]
    spread = max(per_card) / min(per_card) - 1
    return {
        "sizes": rows,
        "api_with_largest_build": {"cards": sizes[-1], **api},
        "batch_sweep": sweep,
        "per_card_spread": spread,
        "target_flat_within_25pct": spread <= 0.25,
    }
