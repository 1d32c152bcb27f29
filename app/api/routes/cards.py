"""GET /api/cards/{id}: a card as stored in the active index."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path
from starlette.concurrency import run_in_threadpool

from app.api.deps import ResourcesDep
from app.api.schemas import ErrorBody
from app.core.cards import Card

router = APIRouter(prefix="/api/cards", tags=["cards"])


@router.get(
    "/{card_id}",
    response_model=Card,
    responses={
        401: {"model": ErrorBody, "description": "API_KEY set and X-API-Key missing or wrong"},
        404: {"model": ErrorBody, "description": "No card with this id"},
        422: {"model": ErrorBody, "description": "Invalid id"},
        429: {"model": ErrorBody, "description": "Rate limit exceeded; see Retry-After"},
        503: {"model": ErrorBody, "description": "Store unavailable or index not ready"},
    },
)
async def get_card(
    card_id: Annotated[str, Path(max_length=64, description="A card id such as card-001")],
    resources: ResourcesDep,
) -> Card:
    card = await run_in_threadpool(resources.store.get_card, card_id)
    if card is None:
        raise HTTPException(status_code=404, detail=f"no card with id {card_id!r}")
    return card
