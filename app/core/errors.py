"""Named domain errors. Messages name the bad value and what to do about it.

Only the API edge turns them into HTTP responses (app.api.errors).
"""

from __future__ import annotations


class ServiceError(Exception):
    """Base class for errors the service reports to its user."""


class StoreUnavailableError(ServiceError):
    """The vector store could not be reached within the timeout and retries."""


class StoreWriteError(ServiceError):
    """The store answered but refused an operation (full disk, read-only or wrongly owned
    data directory, internal error)."""


class IndexNotReadyError(ServiceError):
    """There is no active index, or it was built in a way this process cannot serve."""


class IngestLockedError(ServiceError):
    """Another ingest holds the lock."""


class CorpusError(ServiceError):
    """The corpus failed validation; `problems` lists every problem found."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        listing = "\n".join(f"  - {p}" for p in problems)
        super().__init__(
            f"corpus is invalid ({len(problems)} problem(s)); nothing was ingested:\n{listing}"
        )


class IngestVerificationError(ServiceError):
    """A freshly built collection does not hold what was written to it."""


class DeadlineExceeded(TimeoutError):
    """A call did not finish within its deadline. Not a ServiceError, never shown as is:
    a store call past its share of REQUEST_DEADLINE_S (app.store.deadline; it may still be
    running in its helper thread) becomes StoreUnavailableError, a model past
    LLM_DEADLINE_S, retries included (app.agent.generators), the extractive fallback."""

    def __init__(self, budget_s: float, detail: str | None = None):
        self.budget_s = budget_s
        super().__init__(detail or f"no answer within {budget_s:.1f} s")
