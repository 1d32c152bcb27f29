"""Patient words for the cards' words (kb/thesaurus.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.text import tokenize
from app.core.thesaurus import Thesaurus, thesaurus


def test_a_patient_word_stands_for_the_cards_word() -> None:
    groups = thesaurus().groups("o remédio da pressão me deixa tonta")
    assert any(set(tokenize("tontura")) <= g for g in groups)


def test_a_phrase_matches_on_its_stems_in_order() -> None:
    found = thesaurus().groups("posso pego o carro depois do remédio?")
    assert any(set(tokenize("dirigir")) <= g for g in found)
    assert not any(set(tokenize("dirigir")) <= g for g in thesaurus().groups("o carro pego"))


def test_an_entry_without_cards_words_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("- patient: [tonta]\n", encoding="utf-8")
    with pytest.raises(ValueError, match="entry 1"):
        Thesaurus.load(path)


@pytest.mark.parametrize("word", ["tomar", "tomei", "remédio", "bebê"])
def test_an_everyday_word_of_any_question_stands_for_nothing_else(word: str) -> None:
    (group,) = thesaurus().groups(word)
    # "bebê" shares its stem with "beber": the drinking words are names of drinks only
    assert group == frozenset(tokenize(word))
