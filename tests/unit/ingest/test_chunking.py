from __future__ import annotations

import re
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.config import Settings
from ingest.chunking import Subchunk, chunk_card, split_text
from ingest.corpus import load_corpus
from tests.conftest import CARDS


def norm(text: str) -> str:
    return " ".join(text.split())


def test_median_bundled_card_yields_three_to_four_chunks() -> None:
    s = Settings(_env_file=None)
    corpus = load_corpus(CARDS)
    counts = [len(chunk_card(c.title, c.text, s.chunk_size, s.chunk_overlap)) for c in corpus.cards]
    assert 3 <= statistics.median(counts) <= 4
    lengths = sorted(len(c.text) for c in corpus.cards)
    median_card = next(c for c in corpus.cards if len(c.text) == lengths[len(lengths) // 2])
    n = len(chunk_card(median_card.title, median_card.text, s.chunk_size, s.chunk_overlap))
    assert 3 <= n <= 4


def test_paragraph_break_preferred_over_sentence_break() -> None:
    first = "Primeira frase do parágrafo um. Segunda frase do parágrafo um."
    second = "Primeira frase do parágrafo dois. Segunda frase do parágrafo dois."
    text = f"{first}\n\n{second}"
    # Both paragraphs fit alone, not together: the cut must fall on the paragraph break.
    bodies = split_text(text, chunk_size=len(first) + 5, chunk_overlap=10)
    assert bodies == [first, second]


def test_small_paragraphs_are_repacked_greedily() -> None:
    paragraphs = ["Um.", "Dois.", "Três.", "Quatro."]
    bodies = split_text("\n\n".join(paragraphs), chunk_size=12, chunk_overlap=2)
    assert bodies == ["Um.\n\nDois.", "Três.", "Quatro."]


def test_sentence_break_used_when_a_paragraph_is_too_long() -> None:
    text = "Tome pela manhã. Use água. Espere meia hora, então coma."
    bodies = split_text(text, chunk_size=30, chunk_overlap=5)
    assert bodies == ["Tome pela manhã. Use água.", "Espere meia hora, então coma."]


def test_word_boundary_used_when_a_sentence_is_too_long() -> None:
    text = "palavra " * 10
    bodies = split_text(text, chunk_size=20, chunk_overlap=5)
    assert all(len(b) <= 20 for b in bodies)
    assert all(set(b.split(" ")) == {"palavra"} for b in bodies)


def test_hard_split_when_no_separator_fits() -> None:
    text = "x" * 25
    assert split_text(text, chunk_size=10, chunk_overlap=3) == ["x" * 10, "x" * 10, "x" * 5]


def test_overlap_is_word_aligned() -> None:
    text = "alfa beta gama delta. epsilon zeta eta teta. iota kapa lambda mi."
    chunks = chunk_card("Título", text, chunk_size=25, chunk_overlap=12)
    assert len(chunks) >= 3
    for prev, chunk in zip(chunks, chunks[1:], strict=False):
        assert chunk.overlap, "every chunk after the first carries an overlap"
        assert len(chunk.overlap) <= 12
        assert prev.body.endswith(chunk.overlap)
        # The overlap starts a word of the previous body.
        start = len(prev.body) - len(chunk.overlap)
        assert start == 0 or prev.body[start - 1] == " "


def test_title_only_on_first_chunk() -> None:
    text = "\n\n".join(f"Parágrafo {i} com algum texto de exemplo." for i in range(5))
    chunks = chunk_card("Levotiroxina", text, chunk_size=60, chunk_overlap=10)
    assert chunks[0].text.startswith("Levotiroxina\n\n")
    assert chunks[0].overlap == ""
    assert all(not c.title and "Levotiroxina" not in c.text for c in chunks[1:])


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (10, 10), (10, 20), (10, -1)])
def test_invalid_budgets_rejected(size: int, overlap: int) -> None:
    with pytest.raises(ValueError, match="chunk_overlap"):
        split_text("texto", size, overlap)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"chunk_size": 100, "chunk_overlap": 100}, "CHUNK_OVERLAP"),
        ({"chunk_size": 0}, "CHUNK_SIZE"),
        ({"chunk_overlap": -5}, "CHUNK_OVERLAP"),
    ],
)
def test_settings_validate_budgets_at_startup(env: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Settings(_env_file=None, **env)  # type: ignore[arg-type]


# -- properties over arbitrary text ---------------------------------------------------

words = st.text(alphabet=st.characters(categories=["L", "N", "P"]), min_size=1, max_size=30)
separators = st.sampled_from([" ", " ", " ", "\n", "\n\n", ". ", "! ", "\t"])
texts = st.lists(st.tuples(words, separators), min_size=0, max_size=80).map(
    lambda pairs: "".join(w + s for w, s in pairs)
)
budgets = st.integers(min_value=8, max_value=300).flatmap(
    lambda size: st.tuples(st.just(size), st.integers(min_value=0, max_value=size - 1))
)


def _starts_mid_word(original: str, chunks: list[Subchunk], size: int) -> list[Subchunk]:
    """Chunks whose body starts inside a word, except hard splits of over-long words."""
    bad = []
    pos = 0
    flat = norm(original)
    for chunk in chunks:
        body = norm(chunk.body)
        at = flat.find(body, pos)
        assert at >= 0, "each body appears in order in the original text"
        if at > 0 and flat[at - 1] != " ":
            word = re.match(r"\S+", flat[flat.rfind(" ", 0, at) + 1 :])
            if not word or len(word.group()) <= size:
                bad.append(chunk)
        pos = at + len(body)
    return bad


@settings(max_examples=300, deadline=None)
@given(text=texts, budget=budgets)
def test_property_chunks_within_budget(text: str, budget: tuple[int, int]) -> None:
    size, overlap = budget
    for chunk in chunk_card("T", text, size, overlap):
        assert 0 < len(chunk.body) <= size
        assert len(chunk.overlap) <= overlap
        if chunk.index > 0:
            assert len(chunk.text) <= size + overlap + 1


@settings(max_examples=300, deadline=None)
@given(text=texts, budget=budgets)
def test_property_no_chunk_starts_mid_word(text: str, budget: tuple[int, int]) -> None:
    size, overlap = budget
    chunks = chunk_card("T", text, size, overlap)
    assert _starts_mid_word(text, chunks, size) == []
    for prev, chunk in zip(chunks, chunks[1:], strict=False):
        if chunk.overlap:
            start = len(norm(prev.body)) - len(chunk.overlap)
            assert norm(prev.body).endswith(chunk.overlap)
            assert start == 0 or norm(prev.body)[start - 1] == " "


@settings(max_examples=300, deadline=None)
@given(text=texts, budget=budgets)
def test_property_bodies_rebuild_the_text(text: str, budget: tuple[int, int]) -> None:
    size, overlap = budget
    chunks = chunk_card("T", text, size, overlap)
    rebuilt = " ".join(c.body for c in chunks)
    # Hard splits cut inside a word; joining them back needs no space.
    assert norm(rebuilt).replace(" ", "") == norm(text).replace(" ", "")
    assert norm(rebuilt) == norm(text) or any(len(w) > size for w in text.split())


@settings(max_examples=100, deadline=None)
@given(text=texts, budget=budgets)
def test_property_deterministic(text: str, budget: tuple[int, int]) -> None:
    size, overlap = budget
    assert chunk_card("T", text, size, overlap) == chunk_card("T", text, size, overlap)


@settings(max_examples=200, deadline=None)
@given(text=texts, budget=budgets)
def test_property_spans_locate_each_body(text: str, budget: tuple[int, int]) -> None:
    size, overlap = budget
    for chunk in chunk_card("T", text, size, overlap):
        assert norm(text[chunk.start : chunk.end]) == norm(chunk.body)
