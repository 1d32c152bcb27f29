"""The authors' sets (kb/questions, tests/eval/authors) and what is measured on them."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from evaluation.authored import (
    HELD_OUT,
    KB_QUESTIONS,
    Item,
    answer_hash,
    card_sentences,
    graded,
    lead_lines,
    load_authors,
    ordinary_turns,
)


def test_every_set_loads_and_no_author_is_both_tuning_and_held_out() -> None:
    sets = load_authors()
    tune = {p.stem for p in KB_QUESTIONS.glob("*.yaml")}
    test = {p.stem for p in HELD_OUT.glob("*.yaml")}
    assert tune and test and not tune & test
    assert {i.split for a in tune for i in sets[a]} == {"tune"}
    assert {i.split for a in test for i in sets[a]} == {"test"}
    # whole authors are held out, and they cover the cards too
    held_cards = {p.card for a in test for i in sets[a] for t in i.as_turns() for p in t.parts}
    assert {f"card-{i:03d}" for i in range(1, 39)} <= held_cards


def test_a_line_that_needs_the_one_before_opens_with_it() -> None:
    s = card_sentences()
    # card-010's "Esses efeitos costumam diminuir..." needs the line before it
    needs_prev = [
        sid for sid in s if sid.startswith("card-010:") and s[sid].startswith("Esses efeitos")
    ][0]
    n = int(needs_prev.split(":")[1])
    before = f"card-010:{n - 1:02d}"
    lines = [(s[before], "card-010"), (s[needs_prev], "card-010"), (s["card-010:01"], "card-010")]
    assert lead_lines(lines) == 2
    assert lead_lines(lines[1:]) == 1


def test_a_grade_counts_only_for_the_answer_it_was_given() -> None:
    rows = [{"id": "a2-0001", "answer": "Resposta nova."}, {"id": "a2-0002", "answer": "Igual."}]
    grades = {
        ("a2-0001", answer_hash("Resposta antiga.")): "A",
        ("a2-0002", answer_hash("Igual.")): "A",
    }
    out = graded(rows, grades)
    assert out["n"] == 2 and out["stale"] == 1 and out["A"] == 0.5


def test_every_grade_pins_its_answer_by_a_hash_read_as_text() -> None:
    # an all-digit hash written unquoted reads back as an int and matches no answer: the
    # grade would count as stale (tests/eval/grades.yaml, 2026-12-06)
    import yaml

    from evaluation.authored import GRADES

    raw = yaml.safe_load(GRADES.read_text(encoding="utf-8"))
    bad = [g["id"] for g in raw if not isinstance(g["answer"], str) or len(g["answer"]) != 12]
    assert not bad, f"answer hashes not read as 12-character text: {bad[:5]}"
    assert all(g["grade"] in ("A", "B", "C", "D") for g in raw)


def test_a_turn_its_author_marks_an_emergency_is_not_an_ordinary_question() -> None:
    item = Item.model_validate(
        {
            "id": "x-c01",
            "kind": "conversation",
            "turns": [
                {
                    "question": "meu avô acordou com a boca torta",
                    "emergency": "medical",
                    "parts": [{"card": "card-018", "answers": ["card-018:01"]}],
                },
                {
                    "question": "dou o aas dele?",
                    "follow_up": True,
                    "parts": [{"card": "card-018", "answers": ["card-018:01"]}],
                },
            ],
        }
    )
    assert [t.emergency for t in item.as_turns()] == ["medical", None]
    rows = [{"id": "x-c01#1", "expect_emergency": "medical"}, {"id": "x-c01#2"}]
    assert [r["id"] for r in ordinary_turns(rows)] == ["x-c01#2"]
    with pytest.raises(ValidationError, match="emergency"):
        Item.model_validate(
            {
                "id": "x",
                "kind": "one_point",
                "question": "q",
                "emergency": "avc",
                "parts": [{"card": "card-018", "answers": ["card-018:01"]}],
            }
        )
