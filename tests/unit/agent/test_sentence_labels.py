"""kb/sentences.yaml: every sentence of the bundled cards labelled, and the labels in step
with the cards' text."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.agent.sentence_labels import (
    INTENTS,
    SentenceLabels,
    card_of,
    numbered,
    sentence_id,
    sentence_labels,
)

CARDS = Path(__file__).resolve().parents[3] / "kb" / "cards"


def bundled() -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8").split("---", 2)[2] for p in CARDS.glob("*.md")}


def test_every_sentence_of_the_cards_has_a_label_that_matches_its_text() -> None:
    cards = bundled()
    labels = sentence_labels()
    assert labels.drift(cards) == []
    for card, text in cards.items():
        for n, _, s in numbered(text):
            assert labels.get(sentence_id(card, n), s) is not None, sentence_id(card, n)


def test_a_needed_sentence_comes_earlier_in_the_same_card() -> None:
    labels = sentence_labels()
    for card, text in bundled().items():
        for n, _, s in numbered(text):
            label = labels.get(sentence_id(card, n), s)
            assert label is not None
            assert set(label.intents) <= set(INTENTS)
            if label.needs:
                assert card_of(label.needs) == card and label.needs < label.id


def test_a_label_written_for_other_text_is_not_used(tmp_path: Path) -> None:
    path = tmp_path / "labels.yaml"
    path.write_text(
        "- {id: 'card-001:01', text: 'Texto antigo.', intents: [horario], needs: null}\n",
        encoding="utf-8",
    )
    labels = SentenceLabels.load(path)
    assert labels.get("card-001:01", "Texto antigo.") is not None
    assert labels.get("card-001:01", "Texto novo.") is None
    assert labels.drift({"card-001": "Texto novo."}) == ["card-001:01"]


def test_an_unknown_intent_is_refused_with_its_name(tmp_path: Path) -> None:
    path = tmp_path / "labels.yaml"
    path.write_text("- {id: 'card-001:01', text: 'T.', intents: [astrologia]}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="astrologia"):
        SentenceLabels.load(path)


def test_sentences_are_numbered_over_the_whole_card() -> None:
    assert numbered("Um. Dois.\n\nTrês.") == [(1, 0, "Um."), (2, 0, "Dois."), (3, 1, "Três.")]
