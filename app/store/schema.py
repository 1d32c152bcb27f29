"""The stored format of an index build (ADR-0020), in one place.

A build is one Chroma collection with one row per subchunk of a card:
- row id `{card id}::{chunk index:02d}` (the parent card is derivable from it);
- document: the subchunk text that was embedded;
- metadata: where the subchunk lies in its card, its BM25 tokens, and the whole card.

The collection's own metadata records how the build was made, so a process can tell
whether it may serve it (`expected_build` / `differences`).

This module is the only one that names a metadata key. Everything else exchanges the
types below: `Row` (what is written), `Card` (app.core.cards) and `StoredChunk` (what is
read back). A row carries its whole card as one JSON value, so a field added to the card
model is stored and read back with no change here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from typing import Any, Protocol

from app.core.cards import Card
from app.core.config import Settings
from app.core.text import TOKENIZER_ID, tokenize

# Bumped whenever the row format changes: a build with another version is never served.
SCHEMA_VERSION = 5  # 5: the card as one JSON value (app.core.cards)

CHUNK_ID_SEPARATOR = "::"

# Row metadata keys.
_PARENT_ID = "parent_id"
_CHUNK_INDEX = "chunk_index"
_CHUNK_START = "chunk_start"
_CHUNK_END = "chunk_end"
_TOKENS = "lexical_tokens"
_CARD = "card_json"  # the whole card, app.core.cards.Card as JSON
_DATE_FIELDS = {name for name, f in Card.model_fields.items() if f.annotation is date}

# Build (collection) metadata keys.
_STATE = "state"
_CORPUS_HASH = "corpus_hash"
_BUILT_AT = "built_at"
_CARD_COUNT = "card_count"
_CHUNK_COUNT = "chunk_count"
_EMBEDDING_MODEL = "embedding_model"
EXAMPLES_HASH = "examples_hash"  # the example questions stored with the build


class ChunkFields(Protocol):
    """What a subchunk offers to be stored (ingest.chunking.Subchunk satisfies it)."""

    @property
    def index(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


@dataclass(frozen=True)
class Row:
    """One stored row: a subchunk, as written and as read back."""

    id: str
    document: str
    metadata: dict[str, Any]


@dataclass(frozen=True)
class StoredChunk:
    """A subchunk: its card, position, and where its body lies in the card text."""

    id: str
    card_id: str
    index: int
    start: int
    end: int
    text: str


# -- rows ------------------------------------------------------------------------------


def chunk_id(card_id: str, index: int) -> str:
    return f"{card_id}{CHUNK_ID_SEPARATOR}{index:02d}"


def card_id_of(row_id: str) -> str:
    """The parent card of a row, from the row id alone."""
    return row_id.rsplit(CHUNK_ID_SEPARATOR, 1)[0]


def row_from(card: Card, chunk: ChunkFields) -> Row:
    """The row of one subchunk, carrying the whole parent card."""
    return Row(
        id=chunk_id(card.id, chunk.index),
        document=chunk.text,
        metadata={
            _PARENT_ID: card.id,
            _CHUNK_INDEX: chunk.index,
            _CHUNK_START: chunk.start,
            _CHUNK_END: chunk.end,
            _TOKENS: " ".join(tokenize(chunk.text)),
            _CARD: card.model_dump_json(),
        },
    )


def card_from(metadata: dict[str, Any]) -> Card:
    """The card a row's metadata carries, as it was written: ingest validated it, and
    the benchmark writes synthetic ids that the card id pattern would refuse."""
    fields = json.loads(str(metadata[_CARD]))
    for name in _DATE_FIELDS.intersection(fields):
        fields[name] = date.fromisoformat(fields[name])
    return Card.model_construct(**fields)


def chunk_from(row_id: str, document: str, metadata: dict[str, Any]) -> StoredChunk:
    return StoredChunk(
        id=row_id,
        card_id=str(metadata[_PARENT_ID]),
        index=int(metadata[_CHUNK_INDEX]),
        start=int(metadata.get(_CHUNK_START, 0)),
        end=int(metadata.get(_CHUNK_END, 0)),
        text=document,
    )


def card_id_from(metadata: dict[str, Any]) -> str:
    return str(metadata[_PARENT_ID])


def tokens_from(metadata: dict[str, Any]) -> list[str]:
    """The BM25 tokens stored with a row."""
    return str(metadata.get(_TOKENS, "")).split()


# Chroma `where` filters over rows.


def first_chunks() -> dict[str, Any]:
    """Rows that start a card: one per card."""
    return {_CHUNK_INDEX: 0}


def first_chunk_of(card_id: str) -> dict[str, Any]:
    return {"$and": [{_PARENT_ID: card_id}, {_CHUNK_INDEX: 0}]}


# -- builds ----------------------------------------------------------------------------


def expected_build(
    settings: Settings, model_id: str, dimension: int, corpus_hash: str | None = None
) -> dict[str, Any]:
    """The fields that must match for this process to serve a build (plus, for ingest,
    the corpus it was built from)."""
    expected: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        _EMBEDDING_MODEL: model_id,
        "embedding_dim": dimension,
        "chunk_size": settings.chunk_size,
        "chunk_overlap": settings.chunk_overlap,
        "lexical_tokenizer": TOKENIZER_ID,
    }
    if corpus_hash is not None:
        expected[_CORPUS_HASH] = corpus_hash
    return expected


def differences(actual: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """Human-readable differences between a build's metadata and what is expected."""
    out = []
    for key, want in expected.items():
        have = actual.get(key)
        if have != want:
            out.append(f"{key}: index has {have!r}, this service uses {want!r}")
    if actual.get(_STATE) != "ready":
        out.append(f"{_STATE}: index is {actual.get(_STATE)!r}, not 'ready'")
    return out


def new_build(expected: dict[str, Any], built_at: str, cards: int, chunks: int) -> dict[str, Any]:
    """Metadata of a build being written (not servable until `ready`)."""
    return {
        **expected,
        _BUILT_AT: built_at,
        _CARD_COUNT: cards,
        _CHUNK_COUNT: chunks,
        _STATE: "building",
    }


def ready(metadata: dict[str, Any]) -> dict[str, Any]:
    return {**metadata, _STATE: "ready"}


def chunk_count(metadata: dict[str, Any]) -> int:
    """Rows in a build, as recorded when it was built (0 if unknown)."""
    return int(metadata.get(_CHUNK_COUNT, 0) or 0)


def build_summary(name: str, metadata: dict[str, Any]) -> dict[str, Any]:
    """What /readyz reports about the active build."""
    return {
        "collection": name,
        "built_at": metadata.get(_BUILT_AT),
        "cards": metadata.get(_CARD_COUNT),
        "chunks": metadata.get(_CHUNK_COUNT),
        "embedding_model": metadata.get(_EMBEDDING_MODEL),
    }
