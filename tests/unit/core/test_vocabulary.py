"""Names are recognised the way patients type them; the two vocabularies never overlap."""

from __future__ import annotations

import re

import pytest
import yaml

from app.core.text import fold
from app.core.vocabulary import KB, vocabulary
from ingest.corpus import load_corpus
from tests.conftest import CARDS


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("omeprasol antes do cafe?", "omeprazol"),
        ("metiformina enjoo", "metformina"),
        ("levotiroxin e cafe", "levotiroxina"),
        ("losartan me deixa tonto", "losartana"),
        ("tomo marevan", "varfarina"),
        ("remédio da tireoide em jejum?", "levotiroxina"),
        ("sinvastatina a noite", "estatinas"),
        ("rivotril vicia?", "remédios para dormir"),
        ("meu remédio venceu faz 1 mês", "descarte"),
    ],
)
def test_covered_names_survive_typos_brands_and_everyday_names(question: str, name: str) -> None:
    found = [m.entry.name for m in vocabulary().find(question) if m.entry.covered]
    assert found == [name]


@pytest.mark.parametrize(
    ("question", "name"),
    [("posso tomar ozempic?", "ozempic"), ("o que é fibromialgia?", "fibromialgia")],
)
def test_uncovered_names_are_recognised(question: str, name: str) -> None:
    assert [(m.entry.name, m.entry.covered) for m in vocabulary().find(question)] == [(name, False)]


def test_common_words_are_not_read_as_names() -> None:
    assert vocabulary().find("minha pressa é grande, tomei agora") == []


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("e se der dor de barriga?", []),
        ("a metformina me dá dor de barriga", ["metformina"]),
        ("tô de barriga de 3 meses, posso tomar losartana?", ["gravidez", "losartana"]),
        ("minha filha está de barriga e usa insulina", ["gravidez", "insulina"]),
    ],
)
def test_a_stomach_ache_is_no_pregnancy(question: str, names: list[str]) -> None:
    """Before: the alias "de barriga" read "dor de barriga" as pregnancy, and a follow-up
    about it lost the conversation's medicine and was refused."""
    assert [m.entry.name for m in vocabulary().find(question)] == names


@pytest.mark.parametrize(
    "question",
    [
        "sinto dormência nas mãos",  # within two edits of "demência"
        "comi fritura ontem",  # of "fratura"
        "a solucao de reidratacao",  # of "soluço", typed without accents
    ],
)
def test_a_portuguese_word_is_never_read_as_a_misspelt_name(question: str) -> None:
    assert [m.entry.name for m in vocabulary().find(question) if not m.entry.covered] == []


def test_normalise_puts_the_cards_name_in_the_question() -> None:
    assert vocabulary().normalise("omeprasol antes do cafe?") == "omeprazol antes do cafe?"
    assert vocabulary().normalise("tomo marevan") == "tomo marevan (varfarina)"


def test_no_covered_name_and_no_card_topic_is_in_the_uncovered_list() -> None:
    uncovered = {a for e in vocabulary().entries if not e.covered for a in e.aliases}
    covered = {a for e in vocabulary().entries if e.covered for a in e.aliases}
    topics = {fold(t) for c in load_corpus(CARDS).cards for t in [*c.topics, c.title]}
    assert covered & uncovered == set()
    assert topics & uncovered == set()


def test_no_uncovered_name_is_written_in_a_card() -> None:
    """A name some card's text uses is not "not covered" ("ácido úrico" is in the
    hidroclorotiazida card, "candidíase" in the inhaled corticoid one)."""
    text = " ".join(
        fold(f"{c.title} {' '.join(c.topics)} {c.text}") for c in load_corpus(CARDS).cards
    )
    written = [
        a
        for e in vocabulary().entries
        if not e.covered
        for a in e.aliases
        if re.search(rf"(?<![\w-]){re.escape(a)}(?![\w-])", text)
    ]
    assert written == []


def test_every_covered_name_is_in_some_card() -> None:
    text = " ".join(
        fold(f"{c.title} {' '.join(c.topics)} {c.text}") for c in load_corpus(CARDS).cards
    )
    missing = [
        e.name
        for e in vocabulary().entries
        if e.covered
        and not any(re.search(rf"(?<!\w){re.escape(a)}(?!\w)", text) for a in e.aliases)
    ]
    assert missing == []


def test_the_vocabulary_files_are_plain_yaml_lists() -> None:
    for name, sections in (
        ("vocabulary.yaml", {"medicines", "conditions"}),
        ("uncovered.yaml", {"medicines", "conditions", "aspects"}),
    ):
        data = yaml.safe_load((KB / name).read_text(encoding="utf-8"))
        assert set(data) == sections


def test_an_aspect_is_matched_exactly_and_not_when_it_describes_something_else() -> None:
    kinds = lambda q: [m.entry.name for m in vocabulary().find(q) if m.entry.kind == "aspect"]  # noqa: E731
    assert kinds("posso dar losartana pro meu gato?") == ["uso em animais"]
    assert kinds("to com tosse de cachorro desde o enalapril") == []  # a barking cough
    assert kinds("comecei escitalopram e to com uma insonia do cão") == []  # an intensifier
    assert kinds("posso dar dipirona pro cão?") == ["uso em animais"]
    assert kinds("vitamina d em gotinha") == []  # not "gatinha"


def test_a_follow_up_names_its_topic_with_the_right_article() -> None:
    """A follow-up reads "Sobre o diabetes:", never "Sobre os diabetes:" (a fresh author)."""
    shown = {e.name: e.display for e in vocabulary().covered_entries()}
    assert shown["diabetes"] == "o diabetes"
    assert shown["tireoide"] == "a tireoide"
    assert shown["gravidez"] == "a gravidez"
    assert shown["levotiroxina"] == "a levotiroxina"
