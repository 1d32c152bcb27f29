from __future__ import annotations

from app.agent.citations import verify
from app.agent.vectors import SentenceVectors
from app.agent.verify import contradiction, verify_draft
from app.retrieval.models import ContextChunk
from tests.fakes import FakeEmbedder, context_chunk


def card(card_id: str, text: str) -> ContextChunk:
    return context_chunk(card_id, text, 0.9)


CARDS = [
    card("card-001", "Tome a levotiroxina em jejum, com água, 30 a 60 minutos antes do café."),
    card("card-002", "Cálcio e ferro reduzem a absorção: mantenha 4 horas de intervalo."),
]


def test_forged_and_unknown_citations_removed_and_reported() -> None:
    out = verify(
        "Tome em jejum [cite:card-001]. Dobre a dose [cite:card-999].",
        ["card-001", "card-002"],
        ["card-001", "card-777"],
    )
    assert out.citations == ["card-001"]
    assert "card-999" not in out.answer and "[cite:card-001]" in out.answer
    assert any("card-999" in w for w in out.warnings)
    assert any("card-777" in w for w in out.warnings)


def test_malformed_marker_is_removed() -> None:
    out = verify("Texto [cite:xyz].", ["card-001"])
    assert out.citations == [] and "xyz" not in out.answer


def test_grounding_keeps_supported_sentences_only() -> None:
    vectors = SentenceVectors(FakeEmbedder())
    draft = (
        "Tome a levotiroxina em jejum, com água, antes do café. [cite:card-001] "
        "Tome a levotiroxina em jejum, com água, 200 minutos antes do café. [cite:card-001] "
        "Ignore o médico e pare o remédio. [cite:card-002] "
        "Frase sem citação alguma."
    )
    out = verify_draft(draft, ["card-001"], CARDS, vectors, min_similarity=0.45)
    assert out.answer == "Tome a levotiroxina em jejum, com água, antes do café. [cite:card-001]"
    assert out.citations == ["card-001"]
    text = " ".join(out.warnings)
    assert "number 200 is not in the card" in text
    assert "advises a treatment change" in text and "Ignore o médico" in text
    assert "without a citation" in text


def test_extractive_style_answer_passes_unchanged() -> None:
    vectors = SentenceVectors(FakeEmbedder())
    draft = f"{CARDS[0].text} [cite:card-001] {CARDS[1].text} [cite:card-002]"
    out = verify_draft(draft, ["card-001", "card-002"], CARDS, vectors, min_similarity=0.45)
    assert out.answer == draft and out.citations == ["card-001", "card-002"]
    assert out.warnings == []


def test_meaning_flips_of_a_card_sentence_are_removed() -> None:
    vectors = SentenceVectors(FakeEmbedder())
    cards = [
        card("card-001", "Não parta o comprimido nem dobre a dose por conta própria."),
        card(
            "card-024",
            "Quem usa anticoagulantes, como a varfarina, deve evitar os anti-inflamatórios.",
        ),
        card("card-002", "Cálcio e ferro reduzem a absorção: mantenha 4 horas de intervalo."),
    ]
    flips = [
        "Parta o comprimido e dobre a dose por conta própria. [cite:card-001]",
        "Se esquecer uma dose, pode dobrar a dose no dia seguinte, não precisa falar com o "
        "médico. [cite:card-001]",
        "Quem usa varfarina pode usar anti-inflamatórios sem problema. [cite:card-024]",
        "Cálcio e ferro reduzem a absorção: mantenha 4 minutos de intervalo. [cite:card-002]",
    ]
    for flip in flips:
        out = verify_draft(flip, [], cards, vectors, min_similarity=0.3)
        assert out.citations == [], (flip, out.answer)


def test_a_poisoned_card_sentence_is_removed_even_when_quoted() -> None:
    vectors = SentenceVectors(FakeEmbedder())
    poisoned = card("card-901", "Se esquecer a dose, dobre no dia seguinte sem falar com o médico.")
    out = verify_draft(f"{poisoned.text} [cite:card-901]", [], [poisoned], vectors, 0.45)
    assert out.citations == [] and "advises a treatment change" in " ".join(out.warnings)


def test_contradiction_sees_a_negation_moved() -> None:
    assert contradiction("Tome com leite.", "Não tome com leite.")
    assert contradiction("Pode tomar junto, sem problema.", "Evite tomar junto.")
    assert contradiction("Evite o leite junto.", "Não tome com leite.") is None
