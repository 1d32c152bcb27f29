"""POST /api/feedback: a patient rates an answer ("Ajudou" / "Não ajudou")."""

from __future__ import annotations

import logging
import re
from typing import Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator

from app.api.deps import ResourcesDep
from app.api.errors import error_response
from app.api.schemas import ErrorBody
from app.feedback.service import get_feedback
from app.feedback.store import FeedbackStoreError

log = logging.getLogger(__name__)

router = APIRouter(prefix="/api", tags=["feedback"])

ANSWER_ID = re.compile(r"^[0-9a-f]{32}$")

Reason = Literal["nao_respondeu", "dificil_de_entender", "informacao_errada", "outro"]


class FeedbackRequest(BaseModel):
    # No free text, and no field that is not listed: a comment box would collect
    # personal data, which is never stored.
    model_config = ConfigDict(extra="forbid")

    answer_id: str = Field(
        description="The answer_id returned by /api/ask (32 lowercase hex characters)",
        json_schema_extra={"pattern": ANSWER_ID.pattern, "minLength": 32, "maxLength": 32},
    )
    helpful: StrictBool = Field(description='true = "Ajudou", false = "Não ajudou"')
    reason: Reason | None = Field(
        default=None, description='Why it did not help, with "Não ajudou" (helpful=false)'
    )

    @field_validator("answer_id")
    @classmethod
    def _answer_id(cls, value: str) -> str:
        if not ANSWER_ID.match(value):
            raise ValueError(
                "must be the answer_id returned by /api/ask (32 lowercase hex characters), "
                f"got {len(value)} character(s)"
            )
        return value


class FeedbackStored(BaseModel):
    stored: bool


@router.post(
    "/feedback",
    status_code=201,
    response_model=FeedbackStored,
    responses={
        401: {
            "model": ErrorBody,
            "description": "API_KEY is set and X-API-Key is missing or wrong",
        },
        404: {"model": ErrorBody, "description": "No such answer (unknown, or past retention)"},
        413: {"model": ErrorBody, "description": "Body larger than MAX_BODY_BYTES"},
        415: {"model": ErrorBody, "description": "Body is not application/json"},
        422: {"model": ErrorBody, "description": "Invalid input; the message names the field"},
        429: {"model": ErrorBody, "description": "Rate limit exceeded; see Retry-After"},
        503: {"model": ErrorBody, "description": "The feedback store cannot write"},
    },
)
async def post_feedback(
    body: FeedbackRequest, resources: ResourcesDep
) -> FeedbackStored | JSONResponse:
    """Store whether an answer helped, with an optional reason. Stored with the answer's
    stripped question, cited cards, retrieval scores and build; never an IP address."""
    service = get_feedback(resources.settings)
    try:
        stored = await service.add_feedback(body.answer_id, body.helpful, body.reason)
    except FeedbackStoreError as exc:
        log.error("feedback not stored: %s", exc)
        return error_response(
            503,
            "feedback_unavailable",
            "the feedback store cannot write right now; the answer itself is unaffected",
        )
    if not stored:
        days = resources.settings.feedback_retention_days
        return error_response(
            404,
            "unknown_answer",
            f"no answer with this answer_id (unknown, or older than {days} days)",
        )
    return FeedbackStored(stored=True)
