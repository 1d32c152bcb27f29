"""POST /api/ask and POST /api/ask/stream."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from fastapi import APIRouter, Response
from fastapi.responses import StreamingResponse

from app.agent.state import AgentState, Turn
from app.api.deps import ResourcesDep
from app.api.metrics import observe_steps
from app.api.schemas import (
    AskRequest,
    AskResponse,
    Citation,
    Decision,
    ErrorBody,
    RetrievedCard,
    Suggestion,
)
from app.feedback.service import record_answer

router = APIRouter(prefix="/api", tags=["ask"])

ERRORS: dict[int | str, dict[str, object]] = {
    400: {"model": ErrorBody, "description": "Body is not readable as JSON text"},
    401: {"model": ErrorBody, "description": "API_KEY is set and X-API-Key is missing or wrong"},
    413: {"model": ErrorBody, "description": "Body larger than MAX_BODY_BYTES"},
    415: {"model": ErrorBody, "description": "Body is not application/json"},
    422: {"model": ErrorBody, "description": "Invalid input; the message names the field"},
    429: {"model": ErrorBody, "description": "Rate limit exceeded; see Retry-After"},
    503: {"model": ErrorBody, "description": "Store unavailable or index not ready"},
}


def to_response(state: AgentState) -> AskResponse:
    by_id = {p.id: p for p in state.get("parents", [])}
    citations = []
    for card in state.get("citations", []):
        cited = by_id[card].card
        citations.append(
            Citation(
                id=card,
                title=cited.title,
                source=cited.source,
                license=cited.license,
                accessed_at=cited.accessed_at.isoformat(),
            )
        )
    return AskResponse(
        answer=state["answer"],
        citations=citations,
        refused=bool(state.get("refused")),
        citation_warnings=list(state.get("citation_warnings", [])),
        retrieval=[
            RetrievedCard(id=c.id, score=round(c.score, 4)) for c in state.get("candidates", [])
        ],
        emergency=state.get("emergency"),  # type: ignore[arg-type]
        uncertain=state.get("uncertain"),  # type: ignore[arg-type]
        generator=state.get("generator", "none"),
        decision=Decision(
            outcome=state["decision"]["outcome"],
            reason=state["decision"]["reason"],
            signals=state["decision"]["signals"],
        ),
        uncovered_terms=list(state.get("uncovered_terms", [])),
        suggestions=[Suggestion(**s) for s in state.get("suggestions", [])],
        topic=state.get("topic"),
    )


async def _answer(body: AskRequest, resources: ResourcesDep) -> AskResponse:
    history = [Turn(question=t.question, citations=list(t.citations)) for t in body.history]
    state = await resources.run(lambda: resources.agent.ask(body.question, body.top_k, history))
    observe_steps(state.get("timings_ms", {}))
    response = to_response(state)
    record_answer(resources.settings, resources.store, state, response.answer_id)  # never waits
    return response


@router.post("/ask", response_model=AskResponse, responses=ERRORS)
async def ask(body: AskRequest, resources: ResourcesDep) -> Response:
    """Answer a question from the cards, with verified [cite:card-X] citations."""
    result = await _answer(body, resources)
    # Serialized once, here: returning the model would make FastAPI validate it again and
    # encode it through jsonable_encoder (0.2 ms of the decision's signals per answer;
    # response_model still documents the body).
    return Response(result.model_dump_json(), media_type="application/json")


def _deltas(answer: str) -> Iterator[str]:
    """The answer in small pieces; a citation marker is never split."""
    yield from re.findall(r"\[cite:[^\]]*\]\s*|\S+\s*", answer)


def _event(name: str, data: object) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


@router.post(
    "/ask/stream",
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "delta events, then final"},
        **ERRORS,
    },
)
async def ask_stream(body: AskRequest, resources: ResourcesDep) -> StreamingResponse:
    """Server-Sent Events: `delta` events with answer text, then one `final` event with
    the same object as /api/ask. The answer is verified before the first delta is sent,
    so unverified model text never reaches the client."""
    result = await _answer(body, resources)

    def events() -> Iterator[str]:
        for piece in _deltas(result.answer):
            yield _event("delta", {"text": piece})
        yield _event("final", result.model_dump())

    return StreamingResponse(
        events(),
        media_type="text/event-stream",
        headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
    )
