"""The context chunk handed from retrieval to the agent and the prompt."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ContextChunk(BaseModel):
    """A piece of context. After parent expansion, `id` is the card id and `text` the
    whole card; `parent_id` and `chunk_index` default to None so that constructions
    written before ADR-0020 stay valid."""

    id: str
    source: str
    text: str
    score: float
    metadata: dict[str, Any] = Field(default_factory=dict)
    parent_id: str | None = None
    chunk_index: int | None = None
