"""The API edge: domain errors and validation errors become stable JSON bodies
`{"error": {"code": ..., "message": ...}}`, never a traceback."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.core.errors import IndexNotReadyError, StoreUnavailableError, StoreWriteError

log = logging.getLogger(__name__)


def error_response(status: int, code: str, message: str, **extra: object) -> JSONResponse:
    return JSONResponse(
        status_code=status, content={"error": {"code": code, "message": message, **extra}}
    )


def _field_message(err: dict[str, object]) -> str:
    raw_loc = err.get("loc", ())
    parts = raw_loc if isinstance(raw_loc, (list, tuple)) else ()
    loc = [str(p) for p in parts if p not in ("body", "query", "path")]
    field = ".".join(loc) or "body"
    msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{field}: {msg}"


def install(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        messages = [_field_message(e) for e in exc.errors()]
        return error_response(422, "invalid_request", "; ".join(messages), fields=messages)

    @app.exception_handler(StoreUnavailableError)
    async def _store(_: Request, exc: StoreUnavailableError) -> JSONResponse:
        log.warning("store unavailable: %s", exc)
        return error_response(503, "store_unavailable", str(exc))

    @app.exception_handler(StoreWriteError)
    async def _store_write(_: Request, exc: StoreWriteError) -> JSONResponse:
        log.error("store error: %s", exc)
        return error_response(503, "store_error", str(exc))

    @app.exception_handler(IndexNotReadyError)
    async def _index(_: Request, exc: IndexNotReadyError) -> JSONResponse:
        return error_response(503, "index_not_ready", str(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}.get(
            exc.status_code, "http_error"
        )
        message = str(exc.detail)
        if exc.status_code == 400 and "parsing the body" in message:
            message = "the body could not be read as JSON text (UTF-8)"
        return error_response(exc.status_code, code, message)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error")
        return error_response(500, "internal_error", "internal error; see the server log")
