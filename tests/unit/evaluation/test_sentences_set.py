"""tests/eval/sentences.yaml: each answering line is a sentence of its card, word for word, so
the answer-focus figures compare what the agent quotes with what the card says."""

from __future__ import annotations

from evaluation.golden import load_sentences
from evaluation.quality import quoted_lines
from ingest.corpus import load_corpus
from tests.conftest import CARDS


def test_every_answering_line_is_in_its_card() -> None:
    cards = {c.id: " ".join(c.text.split()) for c in load_corpus(CARDS).cards}
    missing = [
        (case.id, line)
        for case in load_sentences()
        for line in case.gold_sentences
        if " ".join(line.split()) not in cards.get(case.card, "")
    ]
    assert missing == []


def test_both_halves_are_used() -> None:
    splits = {c.split for c in load_sentences()}
    assert splits == {"tune", "test"}


def test_quoted_lines_reads_an_answer_line_by_line() -> None:
    answer = (
        "Isto pode ser uma emergência: ligue 192.\n\nSobre a varfarina: A vitamina K interfere. "
        "[cite:card-017] Nunca tome dose dobrada para compensar. [cite:card-027]"
    )
    lines = quoted_lines(answer)
    assert [card for _, card in lines] == ["card-017", "card-027"]
    assert lines[0][0].endswith("A vitamina K interfere.")
    assert lines[1][0] == "Nunca tome dose dobrada para compensar."
