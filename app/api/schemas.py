"""Request and response bodies of the HTTP API."""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator

QUESTION_MAX = 2000


class AskRequest(BaseModel):
    question: str = Field(
        description="The patient's question, 1-2000 characters after trimming",
        # Documented for clients and fuzzers; enforced (after trimming) by the validator.
        json_schema_extra={"minLength": 1, "maxLength": QUESTION_MAX, "pattern": "\\S"},
    )
    top_k: int | None = Field(default=None, ge=1, le=20, description="Cards to retrieve (1-20)")

    @field_validator("question")
    @classmethod
    def _trimmed_length(cls, value: str) -> str:
        value = value.strip()
        if not 1 <= len(value) <= QUESTION_MAX:
            raise ValueError(
                f"must be 1-{QUESTION_MAX} characters after trimming, got {len(value)}"
            )
        return value


class Citation(BaseModel):
    id: str
    title: str
    source: str
    license: str
    accessed_at: str


class RetrievedCard(BaseModel):
    id: str
    score: float


class AskResponse(BaseModel):
    answer: str
    citations: list[Citation]
    refused: bool
    citation_warnings: list[str]
    retrieval: list[RetrievedCard]
    emergency: str | None = Field(
        default=None, description="'medical' or 'self_harm' when escalated"
    )
    generator: str = Field(description="extractive, openai, extractive-fallback or none")


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


class Card(BaseModel):
    id: str
    title: str
    text: str
    source: str
    license: str
    accessed_at: str
    topics: list[str]
    reviewed_at: str = Field(description="Date of the last clinical review (YYYY-MM-DD)")
    reviewed_by: str | None = Field(default=None, description="Who reviewed it, if recorded")


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorBody(BaseModel):
    error: ErrorDetail
