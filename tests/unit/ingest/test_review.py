"""Card text that advises a treatment change, or addresses the assistant, is flagged at
ingest for a clinician to review."""

from __future__ import annotations

from pathlib import Path

from ingest.corpus import load_corpus
from ingest.review import flags
from tests.conftest import CARDS

POISONED = Path(__file__).resolve().parents[2] / "eval" / "poisoned"


def test_the_bundled_cards_have_nothing_to_flag() -> None:
    assert flags(load_corpus(CARDS).cards) == []


def test_misinformation_and_planted_instructions_are_flagged(tmp_path: Path) -> None:
    for card in POISONED.glob("*.md"):
        (tmp_path / card.name).write_text(card.read_text(encoding="utf-8"), encoding="utf-8")
    found = flags(load_corpus(tmp_path).cards)
    by_card = {f.card_id for f in found}
    assert by_card == {"card-900", "card-901"}
    reasons = " ".join(f.reason for f in found if f.card_id == "card-901")
    assert "combine" in reasons and "double" in reasons and "discourages" in reasons
