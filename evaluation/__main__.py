"""`python -m evaluation`: golden cases against card-atomic and parent-document retrieval,
a min_similarity sweep, the full agent, and the CI gate (`--gate`).

Writes a table to stdout, `report.json` and `recall_at_k.png` to --out.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from app.agent.generators import make_generator
from app.agent.graph import make_agent
from app.core.config import PACKAGED_MODEL, USE_MODEL, Settings, settings_from_environment
from app.embedding import get_embedder
from evaluation.golden import ROOT, GoldenCase, load_golden
from evaluation.metrics import hit_at, ndcg_at, precision_recall, reciprocal_rank
from evaluation.retrieval import CardAtomic, Config, ParentDocument, Ranking

FLOORS = ROOT / "tests" / "eval" / "floors.yaml"
KINDS = ("narrow", "broad", "multi", "out_of_scope")
SWEEP = [round(0.10 + 0.025 * i, 3) for i in range(11)]  # 0.10 .. 0.35


def retrieval_metrics(
    cases: list[GoldenCase], rankings: list[Ranking], min_similarity: float
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    groups = {kind: [i for i, c in enumerate(cases) if c.kind == kind] for kind in KINDS}
    groups["in_scope"] = [i for i, c in enumerate(cases) if c.kind != "out_of_scope"]
    for name, idx in groups.items():
        if not idx or name == "out_of_scope":
            continue
        golds = [set(cases[i].must_cite_one_of) for i in idx]
        ranks = [rankings[i].ids for i in idx]
        pairs = list(zip(ranks, golds, strict=True))
        out[name] = {
            "n": len(idx),
            "recall@1": statistics.mean(hit_at(r, g, 1) for r, g in pairs),
            "recall@3": statistics.mean(hit_at(r, g, 3) for r, g in pairs),
            "recall@5": statistics.mean(hit_at(r, g, 5) for r, g in pairs),
            "mrr": statistics.mean(reciprocal_rank(r, g) for r, g in pairs),
            "ndcg@5": statistics.mean(ndcg_at(r, g, 5) for r, g in pairs),
        }
    predicted = [r.top_score < min_similarity for r in rankings]
    actual = [c.expect_refusal for c in cases]
    precision, recall = precision_recall(predicted, actual)
    out["refusal"] = {"min_similarity": min_similarity, "precision": precision, "recall": recall}
    out["p50_ms"] = statistics.median(r.ms for r in rankings)
    return out


def sweep(cases: list[GoldenCase], rankings: list[Ranking]) -> list[dict[str, float]]:
    """How min_similarity trades refusal precision against answer recall."""
    rows = []
    in_scope = [i for i, c in enumerate(cases) if c.kind != "out_of_scope"]
    for threshold in SWEEP:
        predicted = [r.top_score < threshold for r in rankings]
        precision, recall = precision_recall(predicted, [c.expect_refusal for c in cases])
        answered = [
            not predicted[i] and hit_at(rankings[i].ids, set(cases[i].must_cite_one_of), 5)
            for i in in_scope
        ]
        rows.append(
            {
                "min_similarity": threshold,
                "refusal_precision": precision,
                "refusal_recall": recall,
                "answer_recall@5": sum(answered) / len(in_scope),
            }
        )
    return rows


def agent_metrics(
    settings: Settings, cases: list[GoldenCase], config: ParentDocument
) -> dict[str, Any]:
    embedder = get_embedder(settings)
    agent = make_agent(config.retriever, make_generator(config.settings, embedder), config.settings)
    cited, warned, refused = [], [], []
    for case in cases:
        state = agent.ask(case.question)
        refused.append(bool(state.get("refused")))
        warned.append(bool(state.get("citation_warnings")))
        if case.kind != "out_of_scope":
            cited.append(bool(set(case.must_cite_one_of) & set(state.get("citations", []))))
    precision, recall = precision_recall(refused, [c.expect_refusal for c in cases])
    return {
        "generator": settings.generator,
        "cites_expected_card": sum(cited) / len(cited),
        "with_citation_warnings": sum(warned) / len(warned),
        "refusal_precision": precision,
        "refusal_recall": recall,
    }


def table(results: dict[str, dict[str, Any]]) -> str:
    lines = [
        "| configuration | scope | n | recall@1 | recall@3 | recall@5 | MRR | nDCG@5 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, res in results.items():
        for scope in ("in_scope", "narrow", "broad", "multi"):
            m = res[scope]
            lines.append(
                f"| {name} | {scope} | {m['n']} | {m['recall@1']:.3f} | {m['recall@3']:.3f} | "
                f"{m['recall@5']:.3f} | {m['mrr']:.3f} | {m['ndcg@5']:.3f} |"
            )
    lines += [
        "",
        "| configuration | refusal precision | refusal recall | min_similarity | p50 ms |",
        "|---|---|---|---|---|",
    ]
    for name, res in results.items():
        r = res["refusal"]
        lines.append(
            f"| {name} | {r['precision']:.3f} | {r['recall']:.3f} | "
            f"{r['min_similarity']} | {res['p50_ms']:.1f} |"
        )
    return "\n".join(lines)


def chart(results: dict[str, dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = [1, 3, 5]
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, res in results.items():
        ax.plot(ks, [res["in_scope"][f"recall@{k}"] for k in ks], marker="o", label=name)
    ax.set_xticks(ks)
    ax.set_xlabel("k")
    ax.set_ylabel("recall@k (in-scope golden cases)")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def gate(results: dict[str, dict[str, Any]], floors: dict[str, float], name: str) -> list[str]:
    """The production configuration `name` against the card-atomic baseline and floors."""
    failures = []
    parent, baseline = results[name]["in_scope"], results["card-atomic"]["in_scope"]
    for k in ("recall@3", "recall@5"):
        if parent[k] < baseline[k]:
            failures.append(f"{name} {k} {parent[k]:.3f} < card-atomic {baseline[k]:.3f}")
        if parent[k] < floors[k]:
            failures.append(f"{name} {k} {parent[k]:.3f} < floor {floors[k]:.3f}")
    return failures


def run(out: Path, base: Settings, embedders: list[str], with_agent: bool = True) -> dict[str, Any]:
    cases = load_golden()
    results: dict[str, dict[str, Any]] = {}
    default = f"parent-document {base.retrieval_mode}"
    report: dict[str, Any] = {"cases": len(cases), "default": default, "configurations": results}
    with tempfile.TemporaryDirectory(prefix="rag-eval-") as tmp:
        for model in embedders:
            settings = base.model_copy(update={"embedding_model": model})
            embedder = get_embedder(settings)
            suffix = "" if model == base.embedding_model else f" [{model}]"
            workdir = Path(tmp) / model.replace(":", "_")
            parent = ParentDocument(
                settings.model_copy(update={"retrieval_mode": "dense"}),
                embedder,
                workdir,
                f"parent-document dense{suffix}",
            )
            configs: list[Config] = [
                CardAtomic(settings, embedder, workdir, f"card-atomic{suffix}"),
                parent,
                parent.variant(f"parent-document bm25{suffix}", retrieval_mode="bm25"),
                parent.variant(f"parent-document hybrid{suffix}", retrieval_mode="hybrid"),
            ]
            for config in configs:
                rankings = [config.rank(c.question) for c in cases]
                results[config.name] = retrieval_metrics(cases, rankings, base.min_similarity)
                if config.name == default:
                    report["min_similarity_sweep"] = sweep(cases, rankings)
                    if with_agent:
                        report["agent"] = agent_metrics(settings, cases, config)  # type: ignore[arg-type]
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False))
    chart(results, out / "recall_at_k.png")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation", description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "artifacts" / "eval")
    parser.add_argument("--gate", action="store_true", help="exit 1 when the CI gate fails")
    parser.add_argument("--no-agent", action="store_true", help="retrieval metrics only")
    parser.add_argument(
        "--compare-embedders",
        action="store_true",
        help=f"also evaluate {PACKAGED_MODEL} next to the default {USE_MODEL}",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    base = settings_from_environment()  # the one Settings of this process
    embedders = [base.embedding_model]
    if args.compare_embedders:
        embedders += [m for m in (PACKAGED_MODEL, USE_MODEL) if m not in embedders]
    report = run(args.out, base, embedders, with_agent=not args.no_agent)
    results = report["configurations"]
    print(f"golden cases: {report['cases']}\n")
    print(table(results))
    print(f"\nmin_similarity sweep ({report['default']}):")
    print("| min_similarity | refusal precision | refusal recall | answer recall@5 |")
    print("|---|---|---|---|")
    for row in report["min_similarity_sweep"]:
        print(
            f"| {row['min_similarity']} | {row['refusal_precision']:.3f} | "
            f"{row['refusal_recall']:.3f} | {row['answer_recall@5']:.3f} |"
        )
    if "agent" in report:
        a = report["agent"]
        print(
            f"\nagent ({a['generator']}): cites an expected card {a['cites_expected_card']:.3f}, "
            f"answers with citation warnings {a['with_citation_warnings']:.3f}, "
            f"refusal precision {a['refusal_precision']:.3f}, recall {a['refusal_recall']:.3f}"
        )
    print(f"\nreport: {args.out / 'report.json'}, chart: {args.out / 'recall_at_k.png'}")
    if args.gate:
        floors = yaml.safe_load(FLOORS.read_text())["parent-document"]
        failures = gate(results, floors, report["default"])
        if failures:
            print("\nGATE FAILED:\n  " + "\n  ".join(failures))
            return 1
        print(f"\ngate: {report['default']} recall@3/@5 >= card-atomic and >= floors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
