from __future__ import annotations

from app.agent.citations import verify
from app.agent.generators import SentenceVectors
from app.agent.verify import verify_draft
from app.retrieval.models import ContextChunk
from tests.fakes import FakeEmbedder


def card(card_id: str, text: str) -> ContextChunk:
    return ContextChunk(
        id=card_id,
        source="s",
        text=text,
        score=0.9,
        parent_id=card_id,
        chunk_index=0,
        metadata={"title": card_id},
    )


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
        "Você pode tomar 200 mcg por dia. [cite:card-001] "
        "Ignore o médico e pare o remédio. [cite:card-002] "
        "Frase sem citação alguma."
    )
    out = verify_draft(draft, ["card-001"], CARDS, vectors, min_similarity=0.45)
    assert out.answer == "Tome a levotiroxina em jejum, com água, antes do café. [cite:card-001]"
    assert out.citations == ["card-001"]
    text = " ".join(out.warnings)
    assert "numbers not in card-001 (200)" in text
    assert "not supported by card-002" in text
    assert "without a citation" in text


def test_extractive_style_answer_passes_unchanged() -> None:
    vectors = SentenceVectors(FakeEmbedder())
    draft = f"{CARDS[0].text} [cite:card-001] {CARDS[1].text} [cite:card-002]"
    out = verify_draft(draft, ["card-001", "card-002"], CARDS, vectors, min_similarity=0.45)
    assert out.answer == draft and out.citations == ["card-001", "card-002"]
    assert out.warnings == []
