"""Advice to change a treatment is read with its negation and framing, not by keyword."""

from __future__ import annotations

import pytest

from app.agent.text import sentences
from app.safety.advice import read, unsafe_reasons
from ingest.corpus import load_corpus
from tests.conftest import CARDS

UNSAFE = [
    "Se esquecer uma dose, pode dobrar a dose no dia seguinte, não precisa falar com o médico.",
    "Se a dor não passar, aumente a dose do paracetamol por conta própria.",
    "Quem usa varfarina pode usar anti-inflamatórios sem problema.",
    "Pode parar a losartana quando a pressão normalizar.",
    "Pare o omeprazol de uma vez, sem falar com o médico.",
    "Tome dois comprimidos se esquecer.",
    "Você pode misturar o remédio para dormir com cerveja.",
    "Quando não melhorar, aumente a dose.",
    "Não é preciso avisar o médico antes de suspender a metformina.",
    "Pode tomar ibuprofeno junto com a varfarina.",
    "Se a pressão baixar, diminua o remédio.",
]
SAFE = [
    "Não pare o remédio sem falar com o médico.",
    "Nunca tome dose dobrada para compensar.",
    "O médico pode pedir para suspender a metformina antes do exame.",
    "Evite misturar anti-inflamatórios com anticoagulantes.",
    "Não aumente a dose por conta própria.",
    "Converse com o médico antes de parar o antidepressivo.",
    "Se a dor não passar, procure o médico.",
    "Pare de fumar.",
    "Se já estiver perto do horário da próxima, pule a dose esquecida.",
]


@pytest.mark.parametrize("sentence", UNSAFE)
def test_advice_to_change_a_treatment_alone_is_unsafe(sentence: str) -> None:
    assert unsafe_reasons(read(sentence), quoted=False)


@pytest.mark.parametrize("sentence", SAFE)
def test_guidance_against_changing_or_led_by_the_doctor_is_safe(sentence: str) -> None:
    assert unsafe_reasons(read(sentence), quoted=False) == []


def test_no_sentence_of_the_bundled_cards_reads_as_unsafe_advice() -> None:
    corpus = load_corpus(CARDS)
    flagged = [
        s for c in corpus.cards for s in sentences(c.text) if unsafe_reasons(read(s), quoted=True)
    ]
    assert flagged == []


def test_a_negation_belongs_to_its_own_verb() -> None:
    reading = read("Se a dor não passar, aumente a dose.")
    assert [(a.action, a.against) for a in reading.actions] == [("increase", False)]
    reading = read("Não pare nem mude o remédio por conta própria.")
    assert {a.against for a in reading.actions} == {True}
