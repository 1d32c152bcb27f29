from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from app.core.errors import CorpusError
from ingest.corpus import load_corpus
from tests.conftest import CARDS

OUTLINE_IDS = [f"card-{i:03d}" for i in range(1, 39)]


def test_bundled_corpus_is_valid_and_complete() -> None:
    corpus = load_corpus(CARDS)
    assert corpus.ids == OUTLINE_IDS
    assert all(c.license == "CC-BY-4.0" for c in corpus.cards)
    assert all(2 <= len(c.topics) <= 5 for c in corpus.cards)


def test_bundled_corpus_has_the_outline_shape() -> None:
    corpus = load_corpus(CARDS)
    lengths = sorted(len(c.text) for c in corpus.cards)
    assert all(600 <= n <= 2200 for n in lengths)
    assert 1000 <= statistics.median(lengths) <= 1200
    p90 = lengths[int(0.9 * len(lengths)) - 1]
    assert 1350 <= p90 <= 1650
    for card in corpus.cards:
        paragraphs = [p for p in card.text.split("\n\n") if p.strip()]
        assert 3 <= len(paragraphs) <= 5, card.id


def test_corpus_hash_changes_with_content(corpus_copy: Path) -> None:
    before = load_corpus(corpus_copy).corpus_hash
    path = corpus_copy / "card-005.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nMais uma frase.\n", encoding="utf-8")
    assert load_corpus(corpus_copy).corpus_hash != before


def _rewrite(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _body_only(path: Path, body: str) -> None:
    text = path.read_text(encoding="utf-8")
    head = text.split("\n---", 1)[0]
    path.write_text(f"{head}\n---\n{body}", encoding="utf-8")


def test_every_problem_reported_at_once_with_file_and_field(corpus_copy: Path) -> None:
    _rewrite(corpus_copy / "card-003.md", "id: card-003", "id: cartao-3")
    _rewrite(corpus_copy / "card-007.md", "title:", "titulo:")
    _body_only(corpus_copy / "card-011.md", "   \n")
    _rewrite(corpus_copy / "card-020.md", "accessed_at: ", "accessed_at: 2026-13-45 #")
    with pytest.raises(CorpusError) as info:
        load_corpus(corpus_copy)
    problems = info.value.problems
    text = str(info.value)
    assert "nothing was ingested" in text
    assert any("card-003.md: id:" in p for p in problems)
    assert any("card-007.md: title:" in p and "required" in p.lower() for p in problems)
    assert any("card-007.md: titulo:" in p for p in problems)  # unknown field
    assert any("card-011.md: body:" in p for p in problems)
    assert any("card-020.md: accessed_at:" in p for p in problems)


def test_duplicate_ids_rejected(corpus_copy: Path) -> None:
    _rewrite(corpus_copy / "card-002.md", "id: card-002", "id: card-001")
    with pytest.raises(CorpusError, match=r"card-002.md: id: duplicate id 'card-001'"):
        load_corpus(corpus_copy)


def test_missing_front_matter_rejected(corpus_copy: Path) -> None:
    (corpus_copy / "card-039.md").write_text("Só texto, sem cabeçalho.\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="card-039.md: missing YAML front matter"):
        load_corpus(corpus_copy)


def test_broken_yaml_rejected(corpus_copy: Path) -> None:
    _rewrite(corpus_copy / "card-009.md", "topics:", "topics: [unclosed")
    with pytest.raises(CorpusError, match="card-009.md: front matter is not valid YAML"):
        load_corpus(corpus_copy)


def test_oversized_body_rejected(corpus_copy: Path) -> None:
    _body_only(corpus_copy / "card-010.md", "palavra " * 2000)
    with pytest.raises(CorpusError, match="card-010.md: body: String should have at most"):
        load_corpus(corpus_copy)


def test_empty_directory_rejected(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="no card files"):
        load_corpus(tmp_path)
