"""The charts of docs/benchmarks.md (matplotlib, Agg backend, PNG)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def floor(fl: dict[str, Any], path: Path) -> None:
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


def load(ld: dict[str, Any], path: Path) -> None:
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


def ingest(ing: dict[str, Any], path: Path) -> None:
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


def peer(pe: dict[str, Any], path: Path) -> None:
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
