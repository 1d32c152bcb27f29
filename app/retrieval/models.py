"""The context chunk handed from retrieval to the agent and the prompt (ADR-0020): a
whole card, the subchunk of it that matched, and the scores it was ranked by.

Built in one place, `app.retrieval.parents.expand`; everything downstream reads these
typed fields (a card field added to app.core.cards arrives here as `chunk.card.<field>`).
"""

from __future__ import annotations

from pydantic import BaseModel

from app.core.cards import Card
from app.store.schema import StoredChunk


class ContextChunk(BaseModel):
    """A retrieved card. `score` is its best cosine similarity among its subchunks (what
    the min_similarity gate and the API report); `rank_score` is what it is ranked by
    (the best subchunk score plus bonuses, rewritten by the agent's reranking);
    `rerank_score` is set only by a cross-encoder reranker."""

    card: Card
    score: float
    rank_score: float
    matched: StoredChunk | None = None
    rerank_score: float | None = None

    @property
    def id(self) -> str:
        return self.card.id

    @property
    def title(self) -> str:
        return self.card.title

    @property
    def text(self) -> str:
        return self.card.text

    @property
    def source(self) -> str:
        return self.card.source

    @property
    def matched_text(self) -> str:
        """The subchunk that matched, or the whole card when none is known."""
        return (self.matched.text if self.matched else "") or self.card.text
