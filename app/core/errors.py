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
