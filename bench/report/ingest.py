"""Section 3: ingest scaling."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report import charts
from bench.report.format import Section, met, num, table

INTRO = (
    "## 3. Ingest scaling\n\n"
    "The app's own `ingest.pipeline.run_ingest` (validate, embed, versioned collection, "
    "verify, switch) against a Chroma server (`chroma run`, same pin) on 127.0.0.1, a fresh "
    "server per size. Synthetic corpora come from `bench.ingest_scaling.expand_corpus`: card "
    "i is bundled card i mod 38 with its paragraphs rotated, a seeded subset of word swaps "
    "and a variant tag (deterministic, same length profile as the bundled cards). Store "
    "writes and verification are the times `run_ingest` reports for those steps.\n\n"
)


def _sizes(ing: dict[str, Any]) -> str:
    rows = [
        [f"{r['cards']:,}", f"{r['chunks']:,}", num(r["wall_s"], 1), num(r["cards_per_s"], 1)]
        + [num(r["ms_per_card"], 1)]
        + [f"{r[k] / r['wall_s'] * 100:.0f}%" for k in ("embed_s", "write_s", "verify_s")]
        + [num(r["chroma_rss_after_ingest_mb"], 0)]
        for r in ing["sizes"]
    ]
    head = ["cards", "chunks", "wall s", "cards/s", "ms/card", "embedding", "store writes"]
    return table(head + ["verify", "Chroma server RSS MB"], rows)


def _batches(ing: dict[str, Any]) -> str:
    bs = ing.get("batch_sweep", {})
    erows = [[r["batch"], r["chunks"], num(r["chunks_per_s"], 1)] for r in bs.get("embed", [])]
    wrows = [[r["batch"], r["rows"], num(r["rows_per_s"], 0)] for r in bs.get("write", [])]
    text = (
        f"Batch sizes (on the {bs.get('write', [{}])[0].get('rows', '?')}-row corpus; Chroma's "
        f"`get_max_batch_size()` here: {bs.get('max_batch_size')}):\n\n"
        + table(["embedding batch", "chunks", "chunks/s"], erows)
        + "\n\n"
        + table(["write batch", "rows", "rows/s"], wrows)
    )
    if erows and wrows:
        be = max(bs["embed"], key=lambda r: r["chunks_per_s"])
        bw = max(bs["write"], key=lambda r: r["rows_per_s"])
        last = ing["sizes"][-1]
        text += (
            f"\n\nFastest embedding batch here: {be['batch']} ({num(be['chunks_per_s'], 0)} "
            f"chunks/s; the default `EMBEDDING_BATCH_SIZE` is 64). Fastest write batch: "
            f"{bw['batch']} ({num(bw['rows_per_s'], 0)} rows/s); the pipeline writes "
            f"min(`get_max_batch_size()`, 5000) rows per call. Embedding is "
            f"{last['embed_s'] / last['wall_s'] * 100:.0f}% of the largest ingest."
        )
    return text


def render(ing: dict[str, Any], charts_dir: Path, quick: bool) -> Section:
    charts.ingest(ing, charts_dir / "ingest.png")
    spread = ing["per_card_spread"]
    markdown = (
        INTRO
        + _sizes(ing)
        + f"\n\nPer-card cost spread across sizes (max/min - 1): **{spread * 100:.0f}%**."
        + "\n\n![ingest](bench/ingest.png)\n\n"
        + _batches(ing)
    )
    what = (
        "Ingest: per-card cost flat within 25% (quick: small sizes only)"
        if quick
        else "Ingest: per-card cost flat within 25% from 38 to 10,000 cards"
    )
    target = [what, f"{spread * 100:.0f}% spread", met(ing["target_flat_within_25pct"])]
    return Section(markdown, [target], [HISTORY])


HISTORY = (
    "**Card ids used to cap the corpus at 1,000 cards** (`^card-\\d{3}$`); fixed in 3367a7e "
    "(`^card-\\d{3,6}$`). The synthetic corpora here still bypass the loader (ids "
    "`card-NNN-sNNNNN`) and feed `run_ingest` directly. **A 10,000-card build could not be "
    "verified** (one `get` of 36,594 rows exceeds the Chroma server's SQLite variable "
    "limit); fixed in bc7e531: builds are read in pages."
)
