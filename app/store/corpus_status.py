"""What the last ingest thought of the corpus on disk, kept in the store so that the API
(another process, often another container) can report it on /readyz.

A refused corpus (invalid cards) never replaces a working index: the start-up ingest
keeps serving a compatible active index and records the refusal here, one small
collection `{prefix}-corpus-status` whose metadata holds the problems. The next ingest
that accepts the corpus removes it.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from app.store.index import IndexStore

REBUILD = (
    "fix the cards, then rebuild the index: `docker compose run --rm ingest-clean` "
    "(or `make ingest-clean` without Docker)"
)
MAX_PROBLEMS = 50  # Chroma metadata values are strings: keep the record small


def _name(store: IndexStore) -> str:
    return f"{store.prefix}-corpus-status"


def record_refusal(store: IndexStore, corpus_dir: str, problems: list[str]) -> None:
    meta = {
        "status": "refused",
        "corpus_dir": corpus_dir,
        "refused_at": datetime.now(UTC).isoformat(),
        "problem_count": len(problems),
        "problems": json.dumps(problems[:MAX_PROBLEMS], ensure_ascii=False),
    }

    def write(client: Any) -> None:
        col = client.get_or_create_collection(_name(store), embedding_function=None)
        col.modify(metadata=meta)

    store.calls.call("record the refused corpus", write)


def clear(store: IndexStore) -> None:
    """The corpus on disk was accepted: forget an earlier refusal."""
    store.delete_collection(_name(store))


def read(store: IndexStore) -> dict[str, Any]:
    """{"status": "accepted"}, or the refusal with its problems and the command to run."""
    from chromadb.errors import NotFoundError

    def get(client: Any) -> dict[str, Any] | None:
        try:
            return dict(client.get_collection(_name(store)).metadata or {})
        except NotFoundError:
            return None

    meta = store.calls.call("read the corpus status", get)
    if not meta or meta.get("status") != "refused":
        return {"status": "accepted"}
    return {
        "status": "refused",
        "message": "the corpus on disk was refused; the index being served was built "
        "from an earlier corpus",
        "corpus_dir": meta.get("corpus_dir"),
        "refused_at": meta.get("refused_at"),
        "problem_count": meta.get("problem_count"),
        "problems": json.loads(str(meta.get("problems", "[]"))),
        "rebuild": REBUILD,
    }
