from __future__ import annotations

import logging
import statistics
from datetime import date, timedelta
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.errors import CorpusError
from app.store.index import IndexStore
from ingest.corpus import load_corpus
from ingest.pipeline import run_ingest
from tests.conftest import CARDS
from tests.fakes import FakeEmbedder

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


def test_bundled_cards_record_a_past_clinical_review() -> None:
    for card in load_corpus(CARDS).cards:
        assert card.reviewed_at <= date.today() and card.reviewed_at >= card.accessed_at
        assert card.reviewed_by


def test_review_date_in_the_future_is_refused_naming_file_and_field(corpus_copy: Path) -> None:
    future = (date.today() + timedelta(days=1)).isoformat()
    text = (corpus_copy / "card-008.md").read_text(encoding="utf-8")
    old = next(line for line in text.splitlines() if line.startswith("reviewed_at:"))
    _rewrite(corpus_copy / "card-008.md", old, f"reviewed_at: {future}")
    with pytest.raises(CorpusError) as info:
        load_corpus(corpus_copy)
    assert info.value.problems == [
        f"{corpus_copy / 'card-008.md'}: reviewed_at: review date {future} is in the future "
        f"(today is {date.today().isoformat()}): record the date the review actually happened"
    ]


def test_audience_names_known_groups_once(corpus_copy: Path) -> None:
    path = corpus_copy / "card-036.md"
    _rewrite(path, "audience: [elderly]", "audience: [idosos, elderly, elderly]")
    with pytest.raises(CorpusError) as info:
        load_corpus(corpus_copy)
    assert info.value.problems == [
        f"{path}: audience.0: Input should be 'adult', 'child' or 'elderly'",
    ]
    _rewrite(path, "audience: [idosos, elderly, elderly]", "audience: [elderly, elderly]")
    with pytest.raises(
        CorpusError, match=r"card-036.md: audience: audience .* names a group twice"
    ):
        load_corpus(corpus_copy)


def test_a_card_without_an_audience_is_for_adults(corpus_copy: Path) -> None:
    _rewrite(corpus_copy / "card-036.md", "audience: [elderly]\n", "")
    cards = {c.id: c for c in load_corpus(corpus_copy).cards}
    assert cards["card-036"].audience == ["adult"]
    assert load_corpus(CARDS).cards[35].audience == ["elderly"]


def test_review_date_is_required(corpus_copy: Path) -> None:
    text = (corpus_copy / "card-012.md").read_text(encoding="utf-8")
    old = next(line for line in text.splitlines() if line.startswith("reviewed_at:"))
    _rewrite(corpus_copy / "card-012.md", old + "\n", "")
    with pytest.raises(CorpusError, match=r"card-012.md: reviewed_at: Field required"):
        load_corpus(corpus_copy)


def test_overdue_review_is_a_warning_naming_the_file(
    corpus_copy: Path, caplog: pytest.LogCaptureFixture
) -> None:
    text = (corpus_copy / "card-005.md").read_text(encoding="utf-8")
    old = next(line for line in text.splitlines() if line.startswith("reviewed_at:"))
    _rewrite(corpus_copy / "card-005.md", old, "reviewed_at: 2024-01-15")
    with caplog.at_level(logging.WARNING, logger="ingest"):
        corpus = load_corpus(corpus_copy, review_max_days=365)
    assert len(corpus.cards) == 38  # still served
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        f"{corpus_copy / 'card-005.md'}: reviewed_at: last review 2024-01-15 is older than 365 "
        "days (CARD_REVIEW_MAX_DAYS): have the card reviewed"
    ]


def test_review_age_limit_comes_from_the_settings(
    embedded_settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    settings = embedded_settings.model_copy(update={"card_review_max_days": 60})
    cards = load_corpus(settings.corpus_dir, review_max_days=100_000).cards
    overdue = {c.id for c in cards if (date.today() - c.reviewed_at).days > 60}
    assert 0 < len(overdue) < len(cards)
    with caplog.at_level(logging.WARNING, logger="ingest"):
        run_ingest(settings, FakeEmbedder(), IndexStore(settings))
    warned = {
        r.getMessage().split(": reviewed_at:")[0].rsplit("/", 1)[-1].removesuffix(".md")
        for r in caplog.records
        if "CARD_REVIEW_MAX_DAYS" in r.getMessage()
    }
    assert warned == overdue
