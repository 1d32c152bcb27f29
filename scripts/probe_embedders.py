"""Quick probe behind the choice of the default embedding model (README): parent-document
retrieval over the bundled corpus with each packaged model, on a handful of patient-style
questions. The full evaluator (golden set, recall@k, MRR) supersedes it.

    .venv/bin/python scripts/probe_embedders.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from app.core.config import PACKAGED_MODEL, USE_MODEL, settings_from_environment
from app.embedding import Embedder, get_embedder
from app.retrieval.parents import dedupe_and_expand
from app.store.index import Hit
from ingest.corpus import load_corpus
from ingest.pipeline import ChunkRow, build_rows

IN_SCOPE = [
    ("devo tomar com o estômago vazio?", {"card-001", "card-019"}),
    ("posso tomar a metformina depois do almoço?", {"card-003"}),
    ("onde guardo a insulina que ainda não abri?", {"card-006"}),
    ("o remédio da pressão me dá tosse seca", {"card-012"}),
    ("esqueci de tomar o comprimido ontem, tomo dois hoje?", {"card-027"}),
    ("como jogar fora remédio vencido", {"card-031"}),
    ("meu tornozelo inchou depois do remédio novo de pressão", {"card-010"}),
    ("quanto sal posso comer por dia", {"card-014"}),
    ("tenho que enxaguar a boca depois da bombinha de corticoide?", {"card-023"}),
    ("posso beber cerveja tomando antibiótico?", {"card-032", "card-026"}),
]
OUT_OF_SCOPE = [
    "qual a capital da Austrália?",
    "quem ganhou a copa de 2002?",
    "como fazer um bolo de chocolate?",
]


def top(
    embedder: Embedder, rows: list[ChunkRow], vectors: np.ndarray, question: str
) -> tuple[list[str], float, float]:
    started = time.perf_counter()
    q = embedder.embed([question])[0]
    elapsed = (time.perf_counter() - started) * 1000
    hits = [Hit(r.id, r.text, r.metadata, float(s)) for r, s in zip(rows, vectors @ q, strict=True)]
    parents = dedupe_and_expand(hits, top_k=3)
    return [p.id for p in parents], parents[0].score, elapsed


def main() -> None:
    print(
        "| model | recall@1 | recall@3 | lowest in-scope top score | highest out-of-scope score "
        "| query ms |"
    )
    print("|---|---|---|---|---|---|")
    for model in (PACKAGED_MODEL, USE_MODEL):
        settings = settings_from_environment().model_copy(update={"embedding_model": model})
        embedder = get_embedder(settings)
        rows = build_rows(load_corpus(settings.corpus_dir), settings)
        vectors = embedder.embed([r.text for r in rows])
        r1 = r3 = 0
        in_scores, out_scores, times = [], [], []
        for question, gold in IN_SCOPE:
            ids, score, ms = top(embedder, rows, vectors, question)
            r1 += ids[0] in gold
            r3 += bool(gold & set(ids))
            in_scores.append(score)
            times.append(ms)
        for question in OUT_OF_SCOPE:
            _, score, ms = top(embedder, rows, vectors, question)
            out_scores.append(score)
            times.append(ms)
        n = len(IN_SCOPE)
        print(
            f"| {embedder.model_id} | {r1}/{n} | {r3}/{n} | {min(in_scores):.2f} | "
            f"{max(out_scores):.2f} | {statistics.median(times):.1f} |"
        )


if __name__ == "__main__":
    main()
