"""POST /api/search: retrieval only."""

from __future__ import annotations

from fastapi import APIRouter, Response

from app.api.deps import ResourcesDep
from app.api.metrics import observe_steps
from app.api.routes.ask import ERRORS
from app.api.schemas import AskRequest, SearchResponse, SearchResult
from app.safety.pii import clean_question

router = APIRouter(prefix="/api", tags=["search"])


@router.post("/search", response_model=SearchResponse, responses=ERRORS)
async def search(body: AskRequest, resources: ResourcesDep) -> Response:
    """Parent cards for a question with their best subchunk score (no generation). The
    question is searched without markup and personal data, as /api/ask does."""
    # One hop to the thread pool, not two: each hop cost about as much as the vector query.
    result = await resources.run(
        lambda: resources.retriever.search(clean_question(body.question), body.top_k)
    )
    observe_steps(result.timings_ms)
    gate = resources.settings.min_similarity
    response = SearchResponse(
        min_similarity=gate,
        results=[
            SearchResult(
                id=c.id,
                title=c.title,
                score=round(c.score, 4),
                passes_min_similarity=c.score >= gate,
                matched_chunk_id=c.matched.id if c.matched else "",
                matched_text=c.matched.text if c.matched else "",
            )
            for c in result.candidates
        ],
    )
    # Serialized once, here: returning the model would make FastAPI validate it again and
    # encode it through jsonable_encoder (response_model still documents the body).
    return Response(response.model_dump_json(), media_type="application/json")
