"""What a build holds besides its vectors, read once per process when the build becomes
active: every card and every subchunk (its card, position and text).

A query then asks Chroma only for what ranking needs (row ids and distances: the parent
card is derivable from the row id) and takes whole cards from here. The snapshot belongs
to one build (its collection name); when the active pointer names another build, the
store loads that build's snapshot and drops this one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from app.core.cards import Card
from app.store import schema
from app.store.schema import StoredChunk


@dataclass(frozen=True)
class BuildSnapshot:
    name: str
    metadata: dict[str, Any]
    cards: dict[str, Card]
    chunks: dict[str, StoredChunk]

    @classmethod
    def from_rows(
        cls, name: str, metadata: dict[str, Any], rows: Iterable[tuple[str, Any, Any]]
    ) -> BuildSnapshot:
        """From (row id, document, metadata) triples of every row of the build."""
        cards: dict[str, Card] = {}
        chunks: dict[str, StoredChunk] = {}
        for row_id, document, meta in rows:
            chunk = schema.chunk_from(row_id, document or "", meta or {})
            chunks[row_id] = chunk
            if chunk.card_id not in cards:
                cards[chunk.card_id] = schema.card_from(meta or {})
        ordered = {card_id: cards[card_id] for card_id in sorted(cards)}
        return cls(name, dict(metadata), ordered, chunks)

    def card(self, card_id: str) -> Card | None:
        return self.cards.get(card_id)
