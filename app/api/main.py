"""The FastAPI application: routers, error handling, metrics, and the web page."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api import deadline, docs, errors, metrics
from app.api.routes import admin, ask, cards, feedback, health, search
from app.api.security import EdgeGuard
from app.composition import Resources
from app.core.config import Settings, get_settings
from app.core.logging import setup_logging
from app.feedback.service import get_feedback
from app.feedback.store import FeedbackSchemaError

WEB_DIR = Path(__file__).resolve().parents[1] / "web"
log = logging.getLogger(__name__)


CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
DOCS_CSP = docs.CSP  # Swagger UI served from this service (app/api/docs.py)


class SecurityHeaders:
    """Security and caching headers on every response, as plain ASGI middleware (no
    per-request task or body stream, which `app.middleware("http")` adds)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        docs_page = path == "/docs" or path.startswith("/docs/")
        extra = [
            (b"x-content-type-options", b"nosniff"),
            (b"x-frame-options", b"DENY"),
            (b"referrer-policy", b"no-referrer"),
            (b"content-security-policy", (DOCS_CSP if docs_page else CSP).encode()),
        ]
        if path == "/" or path.startswith("/static/"):
            # Unhashed module names and no build step: always revalidate after a deploy.
            extra.append((b"cache-control", b"no-cache"))
        names = {name for name, _ in extra}

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
                message = {**message, "headers": headers + extra}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(settings: Settings | None = None) -> FastAPI:
    conf = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        setup_logging(conf.log_level)
        # First, before the model loads: a feedback schema behind or ahead of this code
        # stops the worker at once. The writer thread then purges, off the request path.
        try:
            get_feedback(conf).start()
        except FeedbackSchemaError as exc:
            log.critical("%s", exc)
            raise
        # Heavy resources are created here, in each worker after the fork.
        app.state.resources = Resources.create(conf)
        # A dead store cannot stall start-up: reaching it gets REQUEST_DEADLINE_S at most.
        app.state.resources.warm(store_deadline_s=conf.request_deadline_s)
        app.state.resources.watch_builds()  # a switched build is warmed off the request path
        log.info("ready to serve (generator=%s, store=%s)", conf.generator, conf.chroma_mode)
        yield
        app.state.resources.stop_watching()
        get_feedback(conf).stop()  # write what is still queued

    app = FastAPI(
        title="Cartões: perguntas de pacientes com citações",
        version="0.1.0",
        description="Answers patients' questions in pt-BR from a card knowledge base; every "
        "claim carries a [cite:card-X] citation verified against the retrieved cards.",
        lifespan=lifespan,
        docs_url=None,  # served by app/api/docs.py, without a CDN
        redoc_url=None,
    )
    errors.install(app)
    # Outermost last: CORS -> security headers -> metrics -> edge guard -> deadline -> routes.
    app.add_middleware(deadline.RequestDeadline, settings=conf)
    app.add_middleware(EdgeGuard, settings=conf)
    app.add_middleware(metrics.MetricsMiddleware)
    app.add_middleware(SecurityHeaders)
    if conf.cors_origin_list:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=conf.cors_origin_list,
            allow_methods=["GET", "POST"],
            allow_headers=["content-type", "x-api-key"],
            max_age=600,
        )
    for router in (
        ask.router,
        search.router,
        cards.router,
        health.router,
        feedback.router,
        admin.router,
    ):
        app.include_router(router)
    docs.install(app)

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(WEB_DIR / "index.html", media_type="text/html; charset=utf-8")

    app.mount("/static", StaticFiles(directory=WEB_DIR, check_dir=False), name="static")
    return app


app = create_app()
