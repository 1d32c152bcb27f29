"""GET /api/admin/gaps: the report of unanswered and unhelpful questions, for the card
authors and the people who run the service.

Access: the X-Admin-Key header must equal ADMIN_API_KEY (constant-time comparison);
with ADMIN_API_KEY unset every /api/admin route answers 404, as if it did not exist.
When API_KEY is also set, the edge guard (app.api.security) first asks for X-API-Key on
every /api route, so /api/admin then needs both keys. The public API_KEY alone never
opens it: Settings refuses an ADMIN_API_KEY equal to API_KEY.
"""

from __future__ import annotations

import hmac
import logging
from typing import Annotated

from fastapi import APIRouter, Depends, Header, HTTPException, Query
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from app.api.deps import ResourcesDep
from app.api.errors import error_response
from app.api.schemas import ErrorBody
from app.feedback.gaps import GapsReport, build_report
from app.feedback.recorder import utcnow
from app.feedback.service import get_feedback
from app.feedback.store import FeedbackStoreError

log = logging.getLogger(__name__)


def require_admin(
    resources: ResourcesDep,
    x_admin_key: Annotated[str | None, Header(description="ADMIN_API_KEY")] = None,
) -> None:
    expected = resources.settings.admin_api_key.get_secret_value()
    if not expected:
        raise HTTPException(status_code=404, detail="Not Found")
    if x_admin_key is None or not hmac.compare_digest(x_admin_key.encode(), expected.encode()):
        raise HTTPException(status_code=401, detail="missing or wrong X-Admin-Key header")


router = APIRouter(prefix="/api/admin", tags=["admin"], dependencies=[Depends(require_admin)])


@router.get(
    "/gaps",
    response_model=GapsReport,
    responses={
        401: {"model": ErrorBody, "description": "X-Admin-Key (or X-API-Key) missing or wrong"},
        404: {"model": ErrorBody, "description": "ADMIN_API_KEY is unset: admin is disabled"},
        422: {"model": ErrorBody, "description": "Invalid query; the message names it"},
        429: {"model": ErrorBody, "description": "Rate limit exceeded; see Retry-After"},
        503: {"model": ErrorBody, "description": "The feedback store cannot be read"},
    },
)
async def gaps(
    resources: ResourcesDep,
    days: Annotated[
        int | None, Query(ge=1, le=3650, description="Only the last N days (default: retention)")
    ] = None,
) -> GapsReport | JSONResponse:
    """Refused questions and questions rated "Não ajudou", grouped by similarity, most
    frequent first: the same report as `make gaps`."""
    store = get_feedback(resources.settings).store
    try:
        return await run_in_threadpool(
            build_report, store, resources.embedder.embed, utcnow(), days
        )
    except FeedbackStoreError as exc:
        log.error("gaps report failed: %s", exc)
        return error_response(503, "feedback_unavailable", "the feedback store cannot be read")
