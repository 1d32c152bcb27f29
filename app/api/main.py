"""The FastAPI application: routers, error handling, metrics, and the web page."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request, Response
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from app.api import errors, metrics
from app.api.resources import Resources
from app.api.routes import admin, ask, cards, feedback, health, search
from app.api.security import EdgeGuard
from app.core.config import Settings, get_settings
from app.core.logging import setup_logging
from app.feedback.service import get_feedback

WEB_DIR = Path(__file__).resolve().parents[1] / "web"
log = logging.getLogger(__name__)


CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
DOCS_CSP = (  # Swagger UI at /docs loads its bundle from a CDN and runs an inline script.
    "default-src 'none'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' https://cdn.jsdelivr.net; img-src 'self' data: https://fastapi.tiangolo.com; "
    "connect-src 'self'; frame-ancestors 'none'"
)


async def security_headers(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    response = await call_next(request)
    path = request.url.path
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Content-Security-Policy"] = DOCS_CSP if path in ("/docs", "/redoc") else CSP
    if path == "/" or path.startswith("/static/"):
        # Unhashed module names and no build step: always revalidate after a deploy.
        response.headers["Cache-Control"] = "no-cache"
    return response


def create_app(settings: Settings | None = None) -> FastAPI:
    conf = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        setup_logging(conf.log_level)
        # Heavy resources are created here, in each worker after the fork.
        app.state.resources = Resources.create(conf)
        app.state.resources.warm()
        get_feedback(conf).start()  # schema and retention purge, off the request path
        log.info("ready to serve (generator=%s, store=%s)", conf.generator, conf.chroma_mode)
        yield
        get_feedback(conf).stop()  # write what is still queued

    app = FastAPI(
        title="Cartões: perguntas de pacientes com citações",
        version="0.1.0",
        description="Answers patients' questions in pt-BR from a card knowledge base; every "
        "claim carries a [cite:card-X] citation verified against the retrieved cards.",
        lifespan=lifespan,
    )
    errors.install(app)
    # Outermost last: CORS -> security headers -> metrics -> edge guard -> routes.
    app.add_middleware(EdgeGuard, settings=conf)
    app.middleware("http")(metrics.middleware)
    app.middleware("http")(security_headers)
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

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(WEB_DIR / "index.html", media_type="text/html; charset=utf-8")

    app.mount("/static", StaticFiles(directory=WEB_DIR, check_dir=False), name="static")
    return app


app = create_app()
