"""Request and response bodies of the HTTP API."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StringConstraints, field_validator

from app.feedback.ids import new_answer_id
from app.safety.rules import KindName

QUESTION_MAX = 2000
HISTORY_TURNS_MAX = 3
HISTORY_QUESTION_MAX = 500
HISTORY_CITATIONS_MAX = 6
CARD_ID = r"^card-\d{3,6}$"
# "Has a character that str.strip() keeps": JSON Schema's \s (ECMA) lacks U+001C-U+001F and
# U+0085, which Python strips, so they are named (a fuzzer found "\u001c" schema-valid).
NOT_BLANK = "[^\\s\\u001c-\\u001f\\u0085]"


def trimmed(value: str, limit: int) -> str:
    """The text without surrounding whitespace; 1 to `limit` characters or a clear error."""
    value = value.strip()
    if not 1 <= len(value) <= limit:
        raise ValueError(f"must be 1-{limit} characters after trimming, got {len(value)}")
    return value


class HistoryTurn(BaseModel):
    """One earlier turn of the same conversation, as the client received it."""

    question: str = Field(
        description=f"The earlier question, 1-{HISTORY_QUESTION_MAX} characters after trimming",
        json_schema_extra={"minLength": 1, "maxLength": HISTORY_QUESTION_MAX, "pattern": NOT_BLANK},
    )
    citations: list[Annotated[str, StringConstraints(pattern=CARD_ID)]] = Field(
        default_factory=list,
        max_length=HISTORY_CITATIONS_MAX,
        description="Card ids the earlier answer cited",
    )

    @field_validator("question")
    @classmethod
    def _trimmed(cls, value: str) -> str:
        return trimmed(value, HISTORY_QUESTION_MAX)


class AskRequest(BaseModel):
    question: str = Field(
        description="The patient's question, 1-2000 characters after trimming",
        # Documented for clients and fuzzers; enforced (after trimming) by the validator.
        json_schema_extra={"minLength": 1, "maxLength": QUESTION_MAX, "pattern": NOT_BLANK},
    )
    top_k: int | None = Field(default=None, ge=1, le=20, description="Cards to retrieve (1-20)")
    history: list[HistoryTurn] = Field(
        default_factory=list,
        max_length=HISTORY_TURNS_MAX,
        description=f"Up to {HISTORY_TURNS_MAX} earlier turns of the conversation, oldest first: "
        "a follow-up that names no topic of its own is answered about theirs",
    )

    @field_validator("question")
    @classmethod
    def _trimmed_length(cls, value: str) -> str:
        return trimmed(value, QUESTION_MAX)


class Citation(BaseModel):
    id: str
    title: str
    source: str
    license: str
    accessed_at: str


class RetrievedCard(BaseModel):
    id: str
    score: float


class Decision(BaseModel):
    outcome: Literal["answer", "not_covered", "emergency"]
    reason: str = Field(description="One plain sentence for support staff")
    signals: dict[str, Any] = Field(description="What the decision used (for support staff)")


class Suggestion(BaseModel):
    id: str
    title: str
    question: str = Field(description="A question the page can ask when the patient clicks it")


class AskResponse(BaseModel):
    answer: str
    citations: list[Citation]
    refused: bool
    citation_warnings: list[str]
    retrieval: list[RetrievedCard]
    emergency: KindName | None = Field(
        default=None,
        description="'medical' (SAMU 192), 'poisoning' (SAMU 192 and Disque-Intoxicação "
        "0800 722 6001) or 'self_harm' (CVV 188 and SAMU 192) when escalated",
    )
    uncertain: KindName | None = Field(
        default=None,
        description="A reading of an emergency too weak to escalate on: the answer is given, "
        "with one calm line on where to get help",
    )
    generator: str = Field(description="extractive, openai, extractive-fallback or none")
    decision: Decision
    uncovered_terms: list[str] = Field(
        default_factory=list, description="What the question names that the cards do not cover"
    )
    suggestions: list[Suggestion] = Field(
        default_factory=list,
        description="With a not-covered answer: up to 3 close covered topics (not citations)",
    )
    topic: str | None = Field(
        default=None, description="The topic a follow-up was assumed to be about"
    )
    answer_id: str = Field(
        default_factory=new_answer_id,
        description="32 lowercase hex characters (UUIDv7 layout), new for every answer: "
        "identifies it for POST /api/feedback",
        json_schema_extra={"pattern": "^[0-9a-f]{32}$"},
    )


class SearchResult(BaseModel):
    id: str
    title: str
    score: float
    passes_min_similarity: bool
    matched_chunk_id: str
    matched_text: str


class SearchResponse(BaseModel):
    results: list[SearchResult]
    min_similarity: float


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorBody(BaseModel):
    error: ErrorDetail
