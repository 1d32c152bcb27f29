"""The stored row format (app.store.schema): ids, rows from cards, cards back from rows,
and the build-compatibility check."""

from __future__ import annotations

import json

import pytest

from app.core.cards import Card
from app.core.config import Settings
from app.core.text import TOKENIZER_ID, tokenize
from app.store import schema
from ingest.chunking import chunk_card
from ingest.corpus import load_corpus
from tests.conftest import CARDS


@pytest.mark.parametrize(
    ("card_id", "index", "row_id"),
    [
        ("card-001", 0, "card-001::00"),
        ("card-038", 12, "card-038::12"),
        ("card-123456", 3, "card-123456::03"),
        ("card-001-s00042", 1, "card-001-s00042::01"),  # the benchmark's synthetic ids
    ],
)
def test_chunk_id_format_and_parent_from_the_id(card_id: str, index: int, row_id: str) -> None:
    assert schema.chunk_id(card_id, index) == row_id
    assert schema.card_id_of(row_id) == card_id


@pytest.fixture(scope="module")
def card_rows() -> list[tuple[Card, list[schema.Row]]]:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    out = []
    for card in load_corpus(CARDS).cards[:5]:
        chunks = chunk_card(card.title, card.text, settings.chunk_size, settings.chunk_overlap)
        out.append((card, [schema.row_from(card, chunk) for chunk in chunks]))
    return out


def test_every_row_carries_the_whole_card(card_rows: list[tuple[Card, list[schema.Row]]]) -> None:
    for card, rows in card_rows:
        for row in rows:
            stored = schema.card_from(row.metadata)
            assert stored.id == card.id and stored.title == card.title
            assert stored.text == card.text and stored.source == card.source
            assert stored.license == card.license
            assert stored == card  # every field, with its type (dates as dates)
            assert stored.audience == card.audience and stored.audience


def test_a_card_without_a_reviewer_reads_back_without_one(
    card_rows: list[tuple[Card, list[schema.Row]]],
) -> None:
    card, _ = card_rows[0]
    anonymous = card.model_copy(update={"reviewed_by": None})
    chunk = chunk_card(card.title, card.text, 500, 50)[0]
    assert schema.card_from(schema.row_from(anonymous, chunk).metadata).reviewed_by is None


def test_rows_locate_their_subchunk_and_carry_its_tokens(
    card_rows: list[tuple[Card, list[schema.Row]]],
) -> None:
    for card, rows in card_rows:
        for index, row in enumerate(rows):
            chunk = schema.chunk_from(row.id, row.document, row.metadata)
            assert row.id == schema.chunk_id(card.id, index)
            assert (chunk.card_id, chunk.index) == (card.id, index)
            assert schema.card_id_from(row.metadata) == card.id
            assert 0 <= chunk.start < chunk.end <= len(card.text)
            body = " ".join(card.text[chunk.start : chunk.end].split())
            assert body in " ".join(row.document.split())
            assert schema.tokens_from(row.metadata) == tokenize(row.document)


def test_metadata_values_are_types_chroma_stores(
    card_rows: list[tuple[Card, list[schema.Row]]],
) -> None:
    for _, rows in card_rows:
        for row in rows:
            assert all(isinstance(v, (str, int, float, bool)) for v in row.metadata.values())


def test_expected_build_names_everything_that_changes_the_index() -> None:
    settings = Settings(_env_file=None, chunk_size=400, chunk_overlap=40)  # type: ignore[call-arg]
    expected = schema.expected_build(settings, "model-x", 512)
    assert expected == {
        "schema_version": schema.SCHEMA_VERSION,
        "embedding_model": "model-x",
        "embedding_dim": 512,
        "chunk_size": 400,
        "chunk_overlap": 40,
        "lexical_tokenizer": TOKENIZER_ID,
    }
    assert schema.expected_build(settings, "model-x", 512, "abc")["corpus_hash"] == "abc"


def test_differences_name_each_mismatch_and_an_unfinished_build() -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    expected = schema.expected_build(settings, "model-x", 512)
    building = schema.new_build(expected, "2026-11-30T00:00:00+00:00", cards=3, chunks=9)
    assert schema.differences(building, expected) == ["state: index is 'building', not 'ready'"]
    ready = schema.ready(building)
    assert schema.differences(ready, expected) == []
    assert schema.chunk_count(ready) == 9 and schema.chunk_count({}) == 0
    other = {**ready, "embedding_dim": 384, "schema_version": schema.SCHEMA_VERSION - 1}
    diff = schema.differences(other, expected)
    assert "embedding_dim: index has 384, this service uses 512" in diff
    assert any(d.startswith("schema_version: index has") for d in diff) and len(diff) == 2


def test_build_summary_reports_the_served_build() -> None:
    meta = schema.ready(schema.new_build({"embedding_model": "m"}, "t", cards=38, chunks=128))
    assert schema.build_summary("cards-v3-x", meta) == {
        "collection": "cards-v3-x",
        "built_at": "t",
        "cards": 38,
        "chunks": 128,
        "embedding_model": "m",
    }


def test_a_row_written_before_a_field_existed_reads_its_default(
    card_rows: list[tuple[Card, list[schema.Row]]],
) -> None:
    """A card field added later (audience) does not make older builds unreadable."""
    card, rows = card_rows[0]
    written = json.loads(rows[0].metadata["card_json"])
    del written["audience"]
    old = {**rows[0].metadata, "card_json": json.dumps(written)}
    assert schema.card_from(old).audience == ["adult"]
