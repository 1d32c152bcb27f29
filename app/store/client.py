"""Chroma client factory: embedded (persistent directory) or HTTP server, same API above.

The stock HTTP client has no timeout (httpx with timeout=None), and its constructor
already makes requests (user identity, tenant, database) on that session. A fresh session
is made for every client (chromadb keys HTTP clients by a random id), so setting the
timeout after construction left each new client's first requests unbounded: with the
server gone, a reconnect could wait forever. The timeout is now set before the first
request. Retries and deadlines live in app.store.calls and app.store.deadline.
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

    if settings.chroma_mode == "embedded":
        settings.chroma_path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(
            path=str(settings.chroma_path),
            settings=ChromaSettings(anonymized_telemetry=False, allow_reset=False),
        )
    # What chromadb.HttpClient does, with a client class that bounds its own requests.
    chroma_settings = ChromaSettings(
        anonymized_telemetry=False,
        allow_reset=False,
        chroma_api_impl="chromadb.api.fastapi.FastAPI",
        chroma_server_host=settings.chroma_host,
        chroma_server_http_port=settings.chroma_port,
        chroma_server_ssl_enabled=False,
    )
    return _client_class()(timeout_s=settings.chroma_timeout_s, settings=chroma_settings)


def set_timeout(server: Any, timeout_s: float) -> None:
    """Bound every request of a chromadb FastAPI server object (its httpx session)."""
    import httpx

    session = getattr(server, "_session", None)
    if not isinstance(session, httpx.Client):  # a chromadb upgrade moved it: fail loudly
        raise RuntimeError("cannot set a timeout on the chromadb HTTP client (internal API moved)")
    session.timeout = httpx.Timeout(timeout_s)


_CLIENT_CLASS: type | None = None


def _client_class() -> type:
    """chromadb's Client, with the timeout set just before the constructor's first request
    (get_user_identity is that request). Built on first use: chromadb is imported lazily."""
    global _CLIENT_CLASS
    if _CLIENT_CLASS is None:
        from chromadb.api.client import Client

        class TimedClient(Client):
            def __init__(self, timeout_s: float, **kwargs: Any):
                self._timeout_s = timeout_s
                super().__init__(**kwargs)

            def get_user_identity(self) -> Any:
                set_timeout(self._server, self._timeout_s)
                return super().get_user_identity()

        _CLIENT_CLASS = TimedClient
    return _CLIENT_CLASS


def close(client: Any) -> None:
    """Release a client that will not be used (its System and HTTP connections)."""
    try:
        client.close()
    except Exception as exc:  # closing is best effort; the client is dropped either way
        log.debug("closing a chromadb client failed: %s", exc)


def describe(settings: Settings) -> str:
    if settings.chroma_mode == "embedded":
        return f"embedded Chroma at {settings.chroma_path}"
    return f"Chroma server at http://{settings.chroma_host}:{settings.chroma_port}"
