"""A card's `suggested_question` (issue 27): the patient question a not-covered answer
offers in the card's name. Written in the card's front matter, validated at ingest, stored
with the card, never embedded, and what `suggestions()` hands the page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.agent.decision import suggestions
from app.core.cards import Card
from app.core.config import Settings
from app.core.errors import CorpusError
from app.core.text import fold, tokenize
from app.store import schema
from ingest.chunking import chunk_card
from ingest.corpus import load_corpus
from tests.conftest import CARDS
from tests.fakes import context_chunk


def _set_question(path: Path, line: str) -> None:
    """Replace the card's `suggested_question:` line (an empty `line` removes it)."""
    text = path.read_text(encoding="utf-8")
    old = next(x for x in text.splitlines() if x.startswith("suggested_question:"))
    path.write_text(text.replace(old + "\n", line + "\n" if line else "", 1), encoding="utf-8")


def test_every_bundled_card_offers_its_own_question() -> None:
    cards = load_corpus(CARDS).cards
    questions = [c.suggested_question for c in cards]
    assert all(isinstance(q, str) for q in questions), [c.id for c in cards]
    assert len(set(questions)) == len(cards), "two cards offer the same question"
    for card in cards:
        question = card.suggested_question or ""
        assert question.endswith("?") and question[0].isupper(), (card.id, question)
        assert question != card.title and ":" not in question, (card.id, question)
        assert len(question) <= 70, (card.id, question)  # one or two lines of a phone button


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('suggested_question: ""', "empty: write the short question a patient would ask"),
        ("suggested_question:", "empty: write the short question a patient would ask"),
        ('suggested_question: "   "', "empty: write the short question a patient would ask"),
        (
            'suggested_question: "Enalapril: tosse seca e sinais de alerta"',
            "'Enalapril: tosse seca e sinais de alerta' is not a question",
        ),
        ('suggested_question: "Tosse?"', "String should have at least 10 characters"),
    ],
)
def test_ingest_refuses_an_empty_or_non_question_naming_file_and_field(
    corpus_copy: Path, line: str, message: str
) -> None:
    path = corpus_copy / "card-012.md"
    _set_question(path, line)
    with pytest.raises(CorpusError) as info:
        load_corpus(corpus_copy)
    (problem,) = info.value.problems
    assert problem.startswith(f"{path}: suggested_question: "), problem
    assert message in problem, problem


def test_a_row_stored_before_the_field_existed_still_reads() -> None:
    card = load_corpus(CARDS).cards[11]
    (chunk, *_) = chunk_card(card.title, card.text, 1000, 100)
    row = schema.row_from(card, chunk)
    written = json.loads(row.metadata["card_json"])
    assert written["suggested_question"] == "O enalapril pode dar tosse seca?"
    del written["suggested_question"]
    old = schema.card_from({**row.metadata, "card_json": json.dumps(written)})
    assert old.suggested_question is None
    # Absent stays absent: what such a card dumps (the API's response) validates again.
    assert "suggested_question" not in old.model_dump()
    assert Card.model_validate(old.model_dump()) == old


def test_the_question_is_never_embedded_nor_indexed() -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    for card in load_corpus(CARDS).cards:
        question = card.suggested_question or ""
        chunks = chunk_card(card.title, card.text, settings.chunk_size, settings.chunk_overlap)
        rows = [schema.row_from(card, chunk) for chunk in chunks]
        embedded = " ".join(r.document for r in rows)
        assert question not in embedded, card.id
        assert card.model_copy(update={"suggested_question": None}).text == card.text
        # The lexical tokens are the embedded text's, whatever the question says.
        for row, chunk in zip(rows, chunks, strict=True):
            assert row.metadata["lexical_tokens"] == " ".join(tokenize(chunk.text)), card.id
        assert fold(question) not in fold(embedded), card.id


def test_suggestions_offer_the_cards_question_and_keep_its_title() -> None:
    card = load_corpus(CARDS).cards[11]
    near = context_chunk("card-012", score=0.3).model_copy(update={"card": card})
    far = context_chunk("card-013", score=0.01)
    assert suggestions([near, far], min_similarity=0.3) == [
        {
            "id": "card-012",
            "title": "Enalapril: tosse seca e sinais de alerta",
            "question": "O enalapril pode dar tosse seca?",
        }
    ]


def test_a_card_stored_without_a_question_is_offered_by_its_title() -> None:
    old = context_chunk("card-012", score=0.5, title="Enalapril: tosse seca e sinais de alerta")
    assert old.card.suggested_question is None
    assert suggestions([old], min_similarity=0.3)[0]["question"] == old.title
