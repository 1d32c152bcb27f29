"""What patients asked that the cards do not answer: refused questions and questions
rated "Não ajudou", grouped by similarity for the card authors.

Grouping: identical questions (case, accents and end punctuation aside) are merged
first; the distinct wordings are embedded with the service's own embedder and grouped by
agglomerative clustering (scikit-learn, average linkage over cosine distance, cut at
DEFAULT_DISTANCE). No number of groups has to be guessed, a group's members are all
close to each other on average (single linkage would chain unrelated questions), and the
cut was chosen on 48 questions about 17 gaps written the way patients ask
(tests/unit/feedback/gap_paraphrases.yaml): adjusted Rand index 0.93 at 0.48, 0.96 at
0.50, 0.77 at 0.55 where unrelated gaps start to merge. Known limit: questions framed
alike about different medicines can share a group ("posso tomar ozempic para
emagrecer?" and "devo tomar a levotiroxina em jejum?" are 0.40 apart); every group
lists its distinct wordings, so the author sees them.

`make gaps` (python -m app.feedback.gaps) prints the groups and writes CSV;
GET /api/admin/gaps returns the same report as JSON (build_report below).
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from app.core.text import fold
from app.feedback.store import FeedbackStore, FeedbackStoreError, GapRow

DEFAULT_DISTANCE = 0.48
MAX_QUESTIONS = 5000  # newest first; clustering is quadratic in distinct wordings
MAX_LISTED = 10

Embed = Callable[[list[str]], np.ndarray]


class GapQuestion(BaseModel):
    question: str
    count: int


class GapCluster(BaseModel):
    count: int = Field(description="Questions in this group, repeats included")
    refused: int = Field(description="How many were refused (the cards do not cover them)")
    not_helpful: int = Field(description='How many were rated "Não ajudou"')
    example: str = Field(description="The most frequent wording, the most central on a tie")
    questions: list[GapQuestion] = Field(
        description=f"Distinct wordings, most frequent first (at most {MAX_LISTED})"
    )
    reasons: dict[str, int] = Field(description='Reasons given with "Não ajudou"')
    last_seen: datetime


class GapsReport(BaseModel):
    generated_at: datetime
    since: datetime
    days: int
    questions: int = Field(description="Questions grouped (refused or rated unhelpful)")
    truncated: bool = Field(description=f"More than {MAX_QUESTIONS}: only the newest were used")
    distance_threshold: float
    clusters: list[GapCluster] = Field(description="Most frequent first")


def _key(question: str) -> str:
    return fold(question).strip(" ?!.,;:")


def cluster_labels(vectors: np.ndarray, distance: float) -> np.ndarray:
    """A group label per row of unit vectors."""
    if len(vectors) < 2:
        return np.zeros(len(vectors), dtype=int)
    from sklearn.cluster import AgglomerativeClustering

    model = AgglomerativeClustering(
        n_clusters=None, metric="cosine", linkage="average", distance_threshold=distance
    )
    return np.asarray(model.fit_predict(vectors))


def group(rows: Sequence[GapRow], embed: Embed, distance: float) -> list[GapCluster]:
    by_key: dict[str, list[GapRow]] = {}
    for row in rows:
        by_key.setdefault(_key(row.question), []).append(row)
    keys = list(by_key)
    if not keys:
        return []
    wording = {k: Counter(r.question for r in by_key[k]).most_common(1)[0][0] for k in keys}
    vectors = np.asarray(embed([wording[k] for k in keys]), dtype=np.float32)
    labels = cluster_labels(vectors, distance)
    clusters = []
    for label in sorted(set(labels.tolist())):
        members = [i for i, lab in enumerate(labels) if lab == label]
        centroid = vectors[members].mean(axis=0)
        # Most frequent first; then the most central (rounded: the CLI and a worker may
        # differ in the last float bits), then alphabetical, so ties always break alike.
        ranked = sorted(
            members,
            key=lambda i: (
                -len(by_key[keys[i]]),
                -round(float(vectors[i] @ centroid), 3),
                wording[keys[i]],
            ),
        )
        member_rows = [r for i in members for r in by_key[keys[i]]]
        reasons = Counter(r.reason for r in member_rows if r.helpful is False and r.reason)
        clusters.append(
            GapCluster(
                count=len(member_rows),
                refused=sum(r.outcome == "refused" for r in member_rows),
                not_helpful=sum(r.helpful is False for r in member_rows),
                example=wording[keys[ranked[0]]],
                questions=[
                    GapQuestion(question=wording[keys[i]], count=len(by_key[keys[i]]))
                    for i in ranked[:MAX_LISTED]
                ],
                reasons=dict(reasons.most_common()),
                last_seen=max(r.created_at for r in member_rows),
            )
        )
    clusters.sort(key=lambda c: (-c.count, -c.last_seen.timestamp()))
    return clusters


def build_report(
    store: FeedbackStore,
    embed: Embed,
    now: datetime,
    days: int | None = None,
    distance: float = DEFAULT_DISTANCE,
) -> GapsReport:
    """The report of GET /api/admin/gaps and `make gaps`. Raises FeedbackStoreError."""
    retention = store.retention.days
    days = min(days or retention, retention)
    rows = store.gap_rows(now, days, MAX_QUESTIONS + 1)
    truncated = len(rows) > MAX_QUESTIONS
    rows = rows[:MAX_QUESTIONS]
    return GapsReport(
        generated_at=now,
        since=now - timedelta(days=days),
        days=days,
        questions=len(rows),
        truncated=truncated,
        distance_threshold=distance,
        clusters=group(rows, embed, distance),
    )


def format_text(report: GapsReport) -> str:
    """Each group: its size and kinds, then its wordings with their counts, the example
    (most frequent) first."""
    head = (
        f"Refused and unhelpful questions, last {report.days} days "
        f"(since {report.since:%Y-%m-%d}): {report.questions} question(s) in "
        f"{len(report.clusters)} group(s)"
    )
    if report.truncated:
        head += f" (only the newest {MAX_QUESTIONS})"
    lines = [head]
    for rank, c in enumerate(report.clusters, 1):
        reasons = ", ".join(f"{reason} {n}" for reason, n in c.reasons.items())
        lines.append("")
        lines.append(
            f"{rank:3d}. {c.count} question(s): refused {c.refused}, not helpful {c.not_helpful}"
            + (f" ({reasons})" if reasons else "")
        )
        lines.extend(f"     {q.count:3d} x  {q.question}" for q in c.questions)
        if (rest := c.count - sum(q.count for q in c.questions)) > 0:
            lines.append(f"           ... and {rest} more, worded otherwise")
    return "\n".join(lines)


CSV_COLUMNS = (
    "rank",
    "count",
    "refused",
    "not_helpful",
    "example",
    "other_questions",
    "reasons",
    "last_seen",
)


def write_csv(report: GapsReport, path: Path) -> None:
    """One row per group. UTF-8 with a byte-order mark, so spreadsheets read accents."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8-sig") as out:
        writer = csv.writer(out)
        writer.writerow(CSV_COLUMNS)
        for rank, c in enumerate(report.clusters, 1):
            writer.writerow(
                [
                    rank,
                    c.count,
                    c.refused,
                    c.not_helpful,
                    c.example,
                    " | ".join(
                        f"{q.question} ({q.count})" for q in c.questions if q.question != c.example
                    ),
                    "; ".join(f"{reason}={n}" for reason, n in c.reasons.items()),
                    c.last_seen.isoformat(timespec="seconds"),
                ]
            )


def main(argv: Sequence[str] | None = None) -> int:
    from app.core.config import get_settings
    from app.core.logging import setup_logging
    from app.embedding import get_embedder
    from app.feedback.recorder import utcnow

    parser = argparse.ArgumentParser(
        prog="python -m app.feedback.gaps",
        description="Refused and unhelpful questions grouped by similarity, most frequent first.",
    )
    parser.add_argument("--csv", type=Path, help="also write the groups to this CSV file")
    parser.add_argument("--days", type=int, help="only the last N days (default: retention)")
    parser.add_argument(
        "--distance",
        type=float,
        default=DEFAULT_DISTANCE,
        help=f"cosine distance that still groups two questions (default {DEFAULT_DISTANCE})",
    )
    parser.add_argument("--json", action="store_true", help="print the JSON of /api/admin/gaps")
    args = parser.parse_args(argv)
    if args.days is not None and args.days < 1:
        parser.error(f"--days must be at least 1, got {args.days}")
    if not 0 < args.distance < 2:
        parser.error(f"--distance must be between 0 and 2 (cosine distance), got {args.distance}")

    settings = get_settings()
    setup_logging("WARNING")
    store = FeedbackStore(
        settings.feedback_database_url.get_secret_value(), settings.feedback_retention_days
    )
    now = utcnow()
    try:
        store.create_schema(now)  # a fresh install: an empty report, not an error
        purged = store.purge(now)
        report = build_report(
            store, lambda texts: get_embedder(settings).embed(texts), now, args.days, args.distance
        )
    except FeedbackStoreError as exc:
        print(f"gaps: {exc}", file=sys.stderr)
        return 1
    finally:
        store.dispose()
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        if purged:
            print(f"(purged {purged} answer(s) older than {settings.feedback_retention_days} days)")
        print(format_text(report))
    if args.csv:
        write_csv(report, args.csv)
        print(f"CSV: {args.csv} ({len(report.clusters)} group(s))", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
