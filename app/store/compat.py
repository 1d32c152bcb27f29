"""What an index build records about itself, and whether this process can serve it."""

from __future__ import annotations

from typing import Any

from app.core.config import SCHEMA_VERSION, Settings
from app.retrieval.lexical import TOKENIZER_ID


def expected_build(settings: Settings, model_id: str, dimension: int) -> dict[str, Any]:
    """The fields that must match for this process to serve an index built elsewhere."""
    return {
        "schema_version": SCHEMA_VERSION,
        "embedding_model": model_id,
        "embedding_dim": dimension,
        "chunk_size": settings.chunk_size,
        "chunk_overlap": settings.chunk_overlap,
        "lexical_tokenizer": TOKENIZER_ID,
    }


def differences(actual: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """Human-readable differences between a build's metadata and what is expected."""
    out = []
    for key, want in expected.items():
        have = actual.get(key)
        if have != want:
            out.append(f"{key}: index has {have!r}, this service uses {want!r}")
    if actual.get("state") != "ready":
        out.append(f"state: index is {actual.get('state')!r}, not 'ready'")
    return out
