"""Prometheus metrics of the feedback store (aggregated over workers like the others)."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

WRITE_FAILURES = Counter(
    "rag_feedback_write_failures",
    "Feedback store operations that failed (full disk, read-only volume, database down)",
    ["what"],
)
WHATS = ("answer", "feedback", "schema", "purge")
for _what in WHATS:  # exported at 0 from the start, so an alert can compare increases
    WRITE_FAILURES.labels(what=_what)

ANSWERS_DROPPED = Counter(
    "rag_feedback_answers_dropped",
    "Answer records dropped because the write queue was full (FEEDBACK_QUEUE_MAX)",
)
ANSWERS_RECORDED = Counter("rag_feedback_answers_recorded", "Answer records written")
FEEDBACK_STORED = Counter("rag_feedback_stored", "Patient ratings stored", ["helpful"])
WRITE_SECONDS = Histogram(
    "rag_feedback_answer_write_seconds",
    "From an answer being queued to its record being committed",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10),
)
