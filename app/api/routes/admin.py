"""GET /api/admin/gaps: the report of unanswered and unhelpful questions, for the card
authors and the people who run the service.

Access: the X-Admin-Key header must equal ADMIN_API_KEY (constant-time comparison);
with ADMIN_API_KEY unset, /api/admin answers 404, as if it did not exist. When API_KEY
is also set, the edge guard (app.api.security) first asks for X-API-Key on every /api
route, so /api/admin then needs both keys. The public API_KEY alone never opens it:
Settings refuses an ADMIN_API_KEY equal to API_KEY.
"""

from __future__ import annotations

import hmac
import logging
from typing import Annotated

from fastapi import APIRouter, Header
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

router = APIRouter(prefix="/api/admin", tags=["admin"])


def denied(resources: ResourcesDep, given: str | None) -> JSONResponse | None:
    """The error response when the admin key does not open /api/admin, else None."""
    expected = resources.settings.admin_api_key.get_secret_value()
    if not expected:
        return error_response(404, "not_found", "Not Found")
    if given is None or not hmac.compare_digest(given.encode(), expected.encode()):
        return error_response(401, "unauthorized", "missing or wrong X-Admin-Key header")
    return None


@router.get(
    "/gaps",
    response_model=GapsReport,
    responses={
        401: {"model": ErrorBody, "description": "X-Admin-Key (or X-API-Key) missing or wrong"},
        404: {"model": ErrorBody, "description": "ADMIN_API_KEY is unset: admin is disabled"},
        429: {"model": ErrorBody, "description": "Rate limit exceeded; see Retry-After"},
        503: {"model": ErrorBody, "description": "The feedback store cannot be read"},
    },
)
async def gaps(
    resources: ResourcesDep,
    x_admin_key: Annotated[str | None, Header(description="ADMIN_API_KEY")] = None,
) -> GapsReport | JSONResponse:
    """Refused questions and questions rated "Não ajudou" within the retention period,
    grouped by similarity, most frequent first: the same report as `make gaps`."""
    if (refusal := denied(resources, x_admin_key)) is not None:
        return refusal
    store = get_feedback(resources.settings).store
    try:
        return await run_in_threadpool(build_report, store, resources.embedder.embed, utcnow())
    except FeedbackStoreError as exc:
        log.error("gaps report failed: %s", exc)
        return error_response(503, "feedback_unavailable", "the feedback store cannot be read")
