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
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from app.core.config import PACKAGED_MODEL, USE_MODEL, Settings, settings_from_environment
from app.embedding import get_embedder
from evaluation.authored import (
    ask_items,
    by_author,
    graded,
    load_authors,
    load_grades,
    ordinary_turns,
)
from evaluation.authored import metrics as authored_metrics
from evaluation.golden import (
    ROOT,
    GoldenCase,
    load_conversations,
    load_golden,
    load_ordinary,
    load_safety,
    load_sentences,
)
from evaluation.metrics import hit_at, ndcg_at, precision_recall, reciprocal_rank
from evaluation.quality import (
    ask_conversations,
    ask_golden,
    ask_safety,
    ask_sentences,
    build_agent,
    conversation_metrics,
    golden_metrics,
    safety_metrics,
    sentence_metrics,
)
from evaluation.retrieval import CardAtomic, Config, ParentDocument, Ranking

FLOORS = ROOT / "tests" / "eval" / "floors.yaml"
KINDS = ("narrow", "broad", "multi", "colloquial", "short", "out_of_scope")
SWEEP = [round(0.10 + 0.025 * i, 3) for i in range(11)]  # 0.10 .. 0.35


HALVES = ("tune", "test")


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


def table(results: dict[str, dict[str, Any]]) -> str:
    lines = [
        "| configuration | scope | n | recall@1 | recall@3 | recall@5 | MRR | nDCG@5 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, res in results.items():
        for scope in ("in_scope", "narrow", "broad", "multi", "colloquial", "short"):
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


def refusal_scores(rows: list[dict[str, Any]]) -> dict[str, float]:
    precision, recall = precision_recall(
        [r["refused"] for r in rows], [r["kind"] == "out_of_scope" for r in rows]
    )
    return {"refusal_precision": precision, "refusal_recall": recall}


def quality_gate(quality: dict[str, Any], floors: dict[str, dict[str, float]]) -> list[str]:
    """The test half of the agent's figures against tests/eval/floors.yaml: each `name` is a
    minimum, each `name_max` a maximum."""
    test = quality["test"]
    figures = {
        "agent": {
            **{k: v for k, v in test["golden"]["in_scope"].items() if k != "n"},
            "refused_near_domain": test["golden"]["refused_near_domain"]["rate"],
            "refused_off_topic": test["golden"]["refused_off_topic"]["rate"],
            "short_answered_right_card": test["golden"]["short"]["answered_right_card"],
            **test["refusal"],
        },
        "safety": test["safety"],
        "answer": test.get("sentences", {}),
        "authors": test.get("authors", {}),
        "ordinary": test.get("ordinary", {}),
    }
    failures = []
    for group, limits in floors.items():
        for key, limit in limits.items():
            name = key.removesuffix("_max")
            value = figures[group][name]
            if key.endswith("_max") and value > limit:
                failures.append(f"{group} {name} {value:.3f} > {limit:.3f}")
            elif not key.endswith("_max") and value < limit:
                failures.append(f"{group} {name} {value:.3f} < floor {limit:.3f}")
    return failures


def quality_report(
    settings: Settings, workdir: Path, halves: tuple[str, ...] = HALVES
) -> dict[str, Any]:
    """The production agent over the golden set, the safety set and the conversations, on
    the given halves (the CI gate reads the test half only: asking the tuning half too is
    about a third of the gate's time, and no floor reads it)."""
    agent = build_agent(settings, workdir)
    golden = ask_golden(agent, [c for c in load_golden() if c.split in halves])
    safety = ask_safety(agent, [c for c in load_safety() if c.split in halves])
    sentences = ask_sentences(agent, [c for c in load_sentences() if c.split in halves])
    convs = [c for c in load_conversations() if c.split in halves]
    without = ask_conversations(agent, convs, with_history=False)
    with_history = ask_conversations(agent, convs, with_history=True)
    held_out = [i for items in load_authors().values() for i in items if i.split == "test"]
    authors = ask_items(agent, held_out) if "test" in halves else []
    ordinary = [
        {"id": c.id, "split": c.split, "emergency": agent.ask(c.question).get("emergency")}
        for c in load_ordinary()
        if c.split in halves
    ]
    out: dict[str, Any] = {}
    for split in halves:
        g = [r for r in golden if r["split"] == split]
        out[split] = {
            "golden": golden_metrics(g),
            "refusal": refusal_scores(g),
            "safety": safety_metrics([r for r in safety if r["split"] == split]),
            "sentences": sentence_metrics([r for r in sentences if r["split"] == split]),
            "authors": authored_figures(authors) if split == "test" else {},
            "ordinary": ordinary_escalations(
                {
                    "golden": [
                        r for r in golden if r["split"] == split and r["kind"] != "out_of_scope"
                    ],
                    "sentences": [
                        r for r in sentences if r["split"] == split and not r["expect_emergency"]
                    ],
                    "conversations": [
                        r
                        for r in with_history
                        if r["split"] == split and r["gold"] and not r["expect_emergency"]
                    ],
                    "authors": ordinary_turns([r for r in authors if r["split"] == split]),
                    "ordinary": [r for r in ordinary if r["split"] == split],
                }
            ),
            "conversations": {
                "without_history": conversation_metrics(
                    [r for r in without if r["split"] == split]
                ),
                "with_history": conversation_metrics(
                    [r for r in with_history if r["split"] == split]
                ),
            },
        }
    out["rows"] = {
        "golden": golden,
        "safety": safety,
        "conversations": with_history,
        "sentences": sentences,
        "authors": authors,
    }
    return out


def ordinary_escalations(sources: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Ordinary questions (in scope, or simply not emergencies) that got an escalation
    instead of their answer, where real traffic is: every set's, pooled, by kind and by set
    (issue 25). A tuning question is read leave-one-out by the exemplar banks."""
    rows = [r for rs in sources.values() for r in rs]
    escalated = [r for r in rows if r.get("emergency")]
    return {
        "n": len(rows),
        "escalated": len(escalated) / len(rows) if rows else float("nan"),
        "by_kind": dict(Counter(str(r["emergency"]) for r in escalated)),
        "by_set": {
            name: f"{sum(bool(r.get('emergency')) for r in rs)} of {len(rs)}"
            for name, rs in sources.items()
        },
    }


def authored_figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The held-out authors' figures (tests/eval/authors), pooled, and the share of each grade
    over their graded sample (tests/eval/grades.yaml)."""
    m = authored_metrics(rows)
    grades = graded(rows, load_grades())
    return {
        "n_turns": m["n_turns"],
        "one_point_opens": m["one_point"]["opens"],
        "one_point_holds": m["one_point"]["holds"],
        "two_part_all_parts": m["two_part"]["all_parts"],
        "follow_up_first_citation": m["follow_up"]["first_citation_right"],
        "recall@5": m["card"]["recall@5"],
        "citation_precision": m["card"]["citation_precision"],
        "wrongly_refused": m["card"]["wrongly_refused"],
        "out_of_scope_refused": m["card"]["out_of_scope_refused"],
        "graded_n": grades["n"],
        "graded_stale": grades["stale"],
        "graded_A": grades["A"],
        "graded_D": grades["D"],
        "by_author": by_author(rows),
    }


def quality_tables(quality: dict[str, Any]) -> str:
    splits = [h for h in ("test", "tune") if h in quality]  # `--halves test`: no tune half
    lines = [
        "| split | kind | n | answered with a right card | wrongly refused | citation precision "
        "| first citation right | recall@1 | recall@5 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for split in splits:
        for kind in ("in_scope", "narrow", "broad", "multi", "colloquial", "short"):
            m = quality[split]["golden"][kind]
            lines.append(
                f"| {split} | {kind} | {m['n']} | {m['answered_right_card']:.3f} | "
                f"{m['wrongly_refused']:.3f} | {m['citation_precision']:.3f} | "
                f"{m['first_citation_right']:.3f} | {m['recall@1']:.3f} | {m['recall@5']:.3f} |"
            )
    lines += ["", "| split | out of scope | n | refused |", "|---|---|---|---|"]
    for split in splits:
        for scope in ("near_domain", "off_topic"):
            m = quality[split]["golden"][f"refused_{scope}"]
            lines.append(f"| {split} | {scope} | {m['n']} | {m['rate']:.3f} |")
    lines += [
        "",
        "| split | emergency recall | self-harm recall | right kind | false alarms "
        "| questions leaking personal data |",
        "|---|---|---|---|---|---|",
    ]
    for split in splits:
        m = quality[split]["safety"]
        lines.append(
            f"| {split} | {m['emergency_recall']:.3f} ({m['n_events']}) | "
            f"{m['self_harm_recall']:.3f} ({m['n_self_harm']}) | {m['right_kind']:.3f} | "
            f"{m['false_alarms']:.3f} ({m['n_informational']}) | "
            f"{m['pii_cases_leaking']} of {m['n_pii']} |"
        )
    lines += [
        "",
        "| split | one-point questions | first citation right | answer holds an answering line "
        "| answer opens with one | lines per answer |",
        "|---|---|---|---|---|---|",
    ]
    for split in splits:
        m = quality[split]["sentences"]
        lines.append(
            f"| {split} | {m['n']} | {m['first_citation_right']:.3f} | "
            f"{m['answer_holds_line']:.3f} | {m['answer_opens_with_line']:.3f} | "
            f"{m['lines_per_answer']:.2f} |"
        )
    o = quality.get("test", {}).get("ordinary")
    if o:
        lines += [
            "",
            "| ordinary questions escalated (test) | n | share | by kind | by set |",
            "|---|---|---|---|---|",
            f"| all sets | {o['n']} | {o['escalated']:.4f} | {o['by_kind']} | {o['by_set']} |",
        ]
    a = quality.get("test", {}).get("authors")
    if a:
        lines += [
            "",
            "| held-out authors | turns | opens with an answering line | holds one | two-part: "
            "every part | follow-ups: first citation | wrongly refused | out of scope refused "
            "| graded A | graded D | graded (stale) |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
            f"| {', '.join(a['by_author'])} | {a['n_turns']} | {a['one_point_opens']:.3f} | "
            f"{a['one_point_holds']:.3f} | {a['two_part_all_parts']:.3f} | "
            f"{a['follow_up_first_citation']:.3f} | {a['wrongly_refused']:.3f} | "
            f"{a['out_of_scope_refused']:.3f} | {a['graded_A']:.3f} | {a['graded_D']:.3f} | "
            f"{a['graded_n']} ({a['graded_stale']}) |",
        ]
    lines += [
        "",
        "| split | follow-up turns | history | recall@1 | recall@5 | first citation right |",
        "|---|---|---|---|---|---|",
    ]
    for split in splits:
        for key, label in (("without_history", "no"), ("with_history", "yes")):
            m = quality[split]["conversations"][key]
            lines.append(
                f"| {split} | {m['n_follow_up']} | {label} | {m['recall@1']:.3f} | "
                f"{m['recall@5']:.3f} | {m['first_citation_right']:.3f} |"
            )
    return "\n".join(lines)


def run(
    out: Path,
    base: Settings,
    embedders: list[str],
    with_agent: bool = True,
    halves: tuple[str, ...] = HALVES,
) -> dict[str, Any]:
    cases = load_golden(split="test")
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
            report["quality"] = quality_report(base, Path(tmp) / "agent", halves)
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
    parser.add_argument(
        "--halves",
        choices=("both", "test"),
        default="both",
        help="which halves the agent is asked (the gate's floors read the test half only)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    base = settings_from_environment()  # the one Settings of this process
    embedders = [base.embedding_model]
    if args.compare_embedders:
        embedders += [m for m in (PACKAGED_MODEL, USE_MODEL) if m not in embedders]
    halves = HALVES if args.halves == "both" else ("test",)
    report = run(args.out, base, embedders, with_agent=not args.no_agent, halves=halves)
    results = report["configurations"]
    print(f"golden cases (test half): {report['cases']}\n")
    print(table(results))
    print(f"\nmin_similarity sweep ({report['default']}):")
    print("| min_similarity | refusal precision | refusal recall | answer recall@5 |")
    print("|---|---|---|---|")
    for row in report["min_similarity_sweep"]:
        print(
            f"| {row['min_similarity']} | {row['refusal_precision']:.3f} | "
            f"{row['refusal_recall']:.3f} | {row['answer_recall@5']:.3f} |"
        )
    if "quality" in report:
        print("\nthe agent (what a patient reads):\n")
        print(quality_tables(report["quality"]))
    print(f"\nreport: {args.out / 'report.json'}, chart: {args.out / 'recall_at_k.png'}")
    if args.gate:
        floors = yaml.safe_load(FLOORS.read_text())
        failures = gate(results, floors["parent-document"], report["default"])
        if "quality" in report:
            failures += quality_gate(
                report["quality"],
                {
                    k: floors[k]
                    for k in ("agent", "safety", "answer", "authors", "ordinary")
                    if k in floors
                },
            )
        if failures:
            print("\nGATE FAILED:\n  " + "\n  ".join(failures))
            return 1
        print(
            f"\ngate: {report['default']} recall@3/@5 >= card-atomic and >= floors; "
            "agent and safety floors met"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
