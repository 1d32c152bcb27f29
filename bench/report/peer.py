"""Section 5: LangChain's ParentDocumentRetriever side by side with ours."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report import charts
from bench.report.format import Section, met, num, table

LABELS = {
    "ours": "ours: `Retriever.search` (parent-document, ADR-0020)",
    "langchain": "LangChain `ParentDocumentRetriever`",
}


def _intro(pe: dict[str, Any]) -> str:
    st = pe["settings"]
    return (
        "## 5. Peer side by side\n\n"
        f"LangChain `ParentDocumentRetriever` (langchain-classic) with "
        f"`RecursiveCharacterTextSplitter(chunk_size={st['chunk_size']}, "
        f"chunk_overlap={st['chunk_overlap']})`, `langchain_chroma.Chroma` (cosine, embedded, "
        f"chromadb pin of the service), an `InMemoryStore` for parents, and **our embedder** "
        f"(`{st['embedding_model']}`, `app.embedding.get_embedder` behind a "
        f"`langchain_core.embeddings.Embeddings` adapter); parents are the same title + text "
        f"the service embeds; `search_kwargs={{'k': 40}}` child hits (our first over-fetch for "
        f"{st['depth']} parents). Both on the bundled corpus, in-process, the golden set's "
        f"{pe['ours']['n']} in-scope questions for recall, all 102 for latency (after a "
        f"warm-up pass).\n\n"
    )


def _table(pe: dict[str, Any]) -> str:
    rows = []
    for name, label in LABELS.items():
        r = pe[name]
        rows.append(
            [label]
            + [num(r[k], 3) for k in ("recall@1", "recall@3", "recall@5", "mrr")]
            + [num(r["latency_ms"]["p50"], 2), num(r["latency_ms"]["p95"], 2)]
            + [num(r["build_s"], 1)]
        )
    head = ["retriever", "recall@1", "recall@3", "recall@5", "MRR", "p50 ms", "p95 ms"]
    return table(head + ["index build s"], rows)


def render(pe: dict[str, Any], charts_dir: Path) -> Section:
    charts.peer(pe, charts_dir / "peer.png")
    ours, theirs = pe["ours"], pe["langchain"]
    targets = [
        [
            f"Peer: recall@{k} equal or better than LangChain's",
            f"{num(ours[f'recall@{k}'], 3)} vs {num(theirs[f'recall@{k}'], 3)}",
            met(ours[f"recall@{k}"] >= theirs[f"recall@{k}"]),
        ]
        for k in (1, 5)
    ]
    targets.append(
        [
            "Peer: our retrieval p50 latency below LangChain's",
            f"p50 {num(ours['latency_ms']['p50'], 2)} vs {num(theirs['latency_ms']['p50'], 2)} ms",
            met(ours["latency_ms"]["p50"] < theirs["latency_ms"]["p50"]),
        ]
    )
    return Section(_intro(pe) + _table(pe) + "\n\n![peer](bench/peer.png)", targets)
