"""Chroma client factory: embedded (persistent directory) or HTTP server, same API above.

The stock HTTP client has no timeout (httpx with timeout=None); we set one on its
session so a hung server can never hang a request. Retries live in app.store.index.
"""

from __future__ import annotations

import logging
from typing import Any

from app.core.config import Settings

log = logging.getLogger(__name__)


def make_client(settings: Settings) -> Any:
    """A new chromadb client for these settings. Raises on an unreachable server."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
    if settings.chroma_mode == "embedded":
        settings.chroma_path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(settings.chroma_path), settings=chroma_settings)

    import httpx

    client = chromadb.HttpClient(
        host=settings.chroma_host, port=settings.chroma_port, settings=chroma_settings
    )
    session = getattr(getattr(client, "_server", None), "_session", None)
    if isinstance(session, httpx.Client):
        session.timeout = httpx.Timeout(settings.chroma_timeout_s)
    else:  # pragma: no cover - a chromadb upgrade moved the session; fail loudly
        raise RuntimeError("cannot set a timeout on the chromadb HTTP client (internal API moved)")
    return client


def describe(settings: Settings) -> str:
    if settings.chroma_mode == "embedded":
        return f"embedded Chroma at {settings.chroma_path}"
    return f"Chroma server at http://{settings.chroma_host}:{settings.chroma_port}"
