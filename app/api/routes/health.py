"""Liveness, readiness and metrics."""

from __future__ import annotations

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from app.api import metrics
from app.api.deps import ResourcesDep
from app.core.errors import IndexNotReadyError, StoreUnavailableError
from app.store import corpus_status

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is alive (no dependency is checked)."""
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(resources: ResourcesDep) -> JSONResponse:
    """200 when the store answers and the active index matches this service's embedding
    model, dimension, schema version and chunk budgets; otherwise 503 with the reason.
    `corpus` says whether the last ingest refused the corpus on disk (then the index being
    served is an earlier one) and what to run."""
    try:
        info = await run_in_threadpool(resources.readiness)
        # Whether the last ingest refused the corpus on disk (the index still serves).
        info["corpus"] = await run_in_threadpool(corpus_status.read, resources.store)
    except (StoreUnavailableError, IndexNotReadyError) as exc:
        code = "store_unavailable" if isinstance(exc, StoreUnavailableError) else "index_not_ready"
        return JSONResponse(
            status_code=503, content={"ready": False, "error": {"code": code, "message": str(exc)}}
        )
    return JSONResponse(content={"ready": True, **info})


@router.get("/metrics", include_in_schema=False)
async def prometheus() -> Response:
    return metrics.render()
