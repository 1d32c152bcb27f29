"""Peer side by side: LangChain's ParentDocumentRetriever (langchain-classic) with its
RecursiveCharacterTextSplitter, Chroma (langchain-chroma) and the same packaged embedder
as the service, same chunk budgets, on the bundled corpus and the golden set; next to our
Retriever (parent-document, ADR-0020). recall@k and query latency."""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from bench.common import QUICK, log, summary
from evaluation.golden import load_golden
from evaluation.metrics import hit_at, reciprocal_rank

DEPTH = 10  # ranks kept per question, as in evaluation/


def _embeddings_adapter(settings: Any) -> Any:
    from langchain_core.embeddings import Embeddings

    from app.embedding import get_embedder

    embedder = get_embedder(settings)

    class AppEmbeddings(Embeddings):
        """Our packaged embedder behind LangChain's interface (no hub, same vectors)."""

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            out: list[list[float]] = []
            for i in range(0, len(texts), settings.embedding_batch_size):
                out.extend(
                    v.tolist() for v in embedder.embed(texts[i : i + settings.embedding_batch_size])
                )
            return out

        def embed_query(self, text: str) -> list[float]:
            return embedder.embed([text])[0].tolist()

    return AppEmbeddings()


def build_langchain(settings: Any, workdir: Path) -> tuple[Any, float]:
    import chromadb
    from chromadb.config import Settings as ChromaSettings
    from langchain_chroma import Chroma
    from langchain_classic.retrievers import ParentDocumentRetriever
    from langchain_classic.storage import InMemoryStore
    from langchain_core.documents import Document
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    from ingest.corpus import load_corpus

    cards = load_corpus(settings.corpus_dir).cards
    started = time.perf_counter()
    client = chromadb.PersistentClient(
        path=str(workdir / "langchain-chroma"),
        settings=ChromaSettings(anonymized_telemetry=False),
    )
    vectorstore = Chroma(
        collection_name="langchain-pdr",
        embedding_function=_embeddings_adapter(settings),
        client=client,
        collection_metadata={"hnsw:space": "cosine"},
    )
    retriever = ParentDocumentRetriever(
        vectorstore=vectorstore,
        docstore=InMemoryStore(),
        child_splitter=RecursiveCharacterTextSplitter(
            chunk_size=settings.chunk_size, chunk_overlap=settings.chunk_overlap
        ),
        # Same number of child hits as our first over-fetch for DEPTH parents.
        search_kwargs={"k": min(DEPTH * settings.overfetch_multiple, settings.overfetch_max)},
    )
    docs = [
        Document(page_content=f"{c.title}\n\n{c.text}", metadata={"card_id": c.id}) for c in cards
    ]
    retriever.add_documents(docs, ids=[c.id for c in cards])
    return retriever, time.perf_counter() - started


def build_ours(settings: Any, workdir: Path) -> tuple[Any, float]:
    from app.embedding import get_embedder
    from app.retrieval.retriever import Retriever
    from app.store.index import IndexStore
    from ingest.pipeline import run_ingest

    conf = settings.model_copy(
        update={"chroma_mode": "embedded", "chroma_path": workdir / "ours-chroma"}
    )
    started = time.perf_counter()
    store = IndexStore(conf)
    run_ingest(conf, get_embedder(conf), store, clean=True)
    return Retriever(store, get_embedder(conf), conf), time.perf_counter() - started


def _metrics(cases: list[Any], ranked: list[list[str]], ms: list[float]) -> dict[str, Any]:
    pairs = [
        (r, set(c.must_cite_one_of))
        for c, r in zip(cases, ranked, strict=True)
        if c.kind != "out_of_scope"
    ]
    out: dict[str, Any] = {
        f"recall@{k}": statistics.fmean(hit_at(r, g, k) for r, g in pairs) for k in (1, 3, 5)
    }
    out["mrr"] = statistics.fmean(reciprocal_rank(r, g) for r, g in pairs)
    out["n"] = len(pairs)
    out["latency_ms"] = summary(ms)
    return out


def run(workdir: Path, settings: Any) -> dict[str, Any]:
    import logging

    logging.getLogger("ingest").setLevel(logging.WARNING)
    cases = load_golden()
    rounds = 1 if QUICK else 3
    log("peer: building ours (run_ingest) and LangChain ParentDocumentRetriever")
    ours, ours_build = build_ours(settings, workdir)
    theirs, theirs_build = build_langchain(settings, workdir)

    def rank_ours(q: str) -> list[str]:
        return [c.id for c in ours.search(q, top_k=DEPTH).candidates]

    def rank_theirs(q: str) -> list[str]:
        return [d.metadata["card_id"] for d in theirs.invoke(q)][:DEPTH]

    fns = {"ours": rank_ours, "langchain": rank_theirs}
    builds = {"ours": ours_build, "langchain": theirs_build}
    for c in cases:  # warm-up
        for fn in fns.values():
            fn(c.question)
    ranked: dict[str, list[list[str]]] = {name: [] for name in fns}
    ms: dict[str, list[float]] = {name: [] for name in fns}
    for r in range(rounds):
        for i, c in enumerate(cases):
            # Interleaved, order alternating: both see the same moment of a shared host.
            for name in sorted(fns, reverse=bool((i + r) % 2)):
                t = time.perf_counter()
                ids = fns[name](c.question)
                ms[name].append((time.perf_counter() - t) * 1000)
                if r == 0:
                    ranked[name].append(ids)
    results: dict[str, Any] = {}
    for name in fns:
        results[name] = {**_metrics(cases, ranked[name], ms[name]), "build_s": builds[name]}
        log(
            f"  {name}: recall@1 {results[name]['recall@1']:.3f}, recall@5 "
            f"{results[name]['recall@5']:.3f}, p50 {results[name]['latency_ms']['p50']:.2f} ms"
        )
    o, t = results["ours"], results["langchain"]
    results["targets"] = {
        "recall_equal_or_better": all(o[f"recall@{k}"] >= t[f"recall@{k}"] for k in (1, 3, 5)),
        "latency_equal_or_better": o["latency_ms"]["p50"] <= t["latency_ms"]["p50"],
    }
    results["settings"] = {
        "chunk_size": settings.chunk_size,
        "chunk_overlap": settings.chunk_overlap,
        "embedding_model": settings.embedding_model,
        "depth": DEPTH,
    }
    return results
