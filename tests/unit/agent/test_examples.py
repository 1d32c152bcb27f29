"""Example questions of card sentences (app.agent.examples)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.agent.examples import Example, ExampleBank, examples_hash, read_examples
from app.agent.sentence_labels import SentenceLabels


def test_a_question_about_an_edited_sentence_is_left_out(tmp_path: Path) -> None:
    (tmp_path / "a1.yaml").write_text(
        "- id: a1-1\n  kind: one_point\n  question: Posso tomar com café?\n"
        "  parts: [{card: card-001, answers: ['card-001:02']}]\n"
        "- id: a1-2\n  kind: one_point\n  question: E em jejum?\n"
        "  parts: [{card: card-001, answers: ['card-001:01']}]\n",
        encoding="utf-8",
    )
    labels_path = tmp_path / "labels.yaml"
    labels_path.write_text(
        "- {id: 'card-001:01', text: 'Tome em jejum.', intents: []}\n"
        "- {id: 'card-001:02', text: 'Sem café.', intents: []}\n",
        encoding="utf-8",
    )
    labels = SentenceLabels.load(labels_path)
    same = read_examples({"card-001": "Tome em jejum. Sem café."}, tmp_path, labels)
    assert [e.sentences for e in same] == [("card-001:02",), ("card-001:01",)]
    edited = read_examples({"card-001": "Tome em jejum. Sem café nem leite."}, tmp_path, labels)
    assert [e.sentences for e in edited] == [("card-001:01",)]
    assert examples_hash(same) != examples_hash(edited)


def test_an_author_can_be_left_out_of_the_similarities() -> None:
    bank = ExampleBank(
        [Example("a", ("card-001:01",), "a1"), Example("b", ("card-001:01", "card-002:01"), "a3")],
        np.array([[1.0, 0.0], [0.6, 0.8]]),
    )
    q = np.array([1.0, 0.0])
    assert bank.similarities(q) == {"card-001:01": 1.0, "card-002:01": 0.6000000238418579}
    assert bank.similarities(q, exclude_author="a1")["card-001:01"] < 0.7


def test_each_sentence_gets_the_best_of_its_examples_and_an_empty_bank_none() -> None:
    bank = ExampleBank(
        [
            Example("a", ("card-002:01", "card-001:01"), "a1"),
            Example("b", ("card-001:01",), "a1"),
            Example("c", ("card-003:02",), "a3"),
        ],
        np.array([[0.2, 0.0], [0.9, 0.0], [-1.0, 0.0]]),
    )
    got = bank.similarities(np.array([1.0, 0.0]))
    # the best example of each sentence; a similarity at -1 is none
    assert got == {"card-001:01": 0.8999999761581421, "card-002:01": 0.20000000298023224}
    assert ExampleBank.empty().similarities(np.zeros(1)) == {}
