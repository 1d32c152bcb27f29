"""The OpenAPI page at /docs, served entirely by this service (no CDN), so it also works
on hosts without internet.

Swagger UI's files come from the PyPI package fastapi-swagger (pinned in
requirements.txt; it ships the Swagger UI release files and follows its releases); the
page and the script that starts Swagger UI are files of ours (app/api/docs_static/), so
the page runs under a Content-Security-Policy with scripts from 'self' only. ReDoc is not
served. FastAPI's own /docs (CDN bundle and an inline script) is turned off in main.py.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import APIRouter, FastAPI, HTTPException
from fastapi.responses import FileResponse

STATIC = Path(__file__).resolve().parent / "docs_static"
OURS = {"swagger-init.js": "text/javascript; charset=utf-8"}
SWAGGER_UI = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "favicon-32x32.png": "image/png",
}
# Everything under /docs gets this policy (main.py): no inline script, nothing from
# elsewhere. data: images are the icons inlined in swagger-ui.css.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

router = APIRouter(include_in_schema=False)


def _swagger_ui_file(name: str) -> Path:
    path = resources.files("fastapi_swagger.resources") / name
    return Path(str(path))


@router.get("/docs")
async def docs_page() -> FileResponse:
    return FileResponse(STATIC / "docs.html", media_type="text/html; charset=utf-8")


@router.get("/docs/assets/{name}")
async def docs_asset(name: str) -> FileResponse:
    if name in OURS:
        return FileResponse(STATIC / name, media_type=OURS[name])
    if name in SWAGGER_UI:
        return FileResponse(_swagger_ui_file(name), media_type=SWAGGER_UI[name])
    raise HTTPException(404, f"no docs asset {name!r}")


def install(app: FastAPI) -> None:
    app.include_router(router)
