from __future__ import annotations

import pytest

from app.agent.context import ELLIPSIS, context_block, window
from tests.fakes import context_chunk

TEXT = " ".join(f"palavra{i:03d}" for i in range(200))  # 200 words of 11 chars


def test_short_text_is_kept_whole() -> None:
    assert window("curto demais", 0, 5, 600) == "curto demais"


@pytest.mark.parametrize("where", [0, 900, 1700, 2180])
def test_window_contains_the_match_and_marks_cuts(where: int) -> None:
    start, end = where, min(where + 100, len(TEXT))
    kept = window(TEXT, start, end, 600)
    inner = kept.strip(ELLIPSIS)
    assert len(inner) <= 600
    assert TEXT[start:end].strip() in inner or inner in TEXT[start:end]
    assert kept.startswith(ELLIPSIS) == (not TEXT.startswith(inner))
    assert kept.endswith(ELLIPSIS) == (not TEXT.endswith(inner))
    # Cuts fall on word boundaries.
    assert all(w.startswith("palavra") and len(w) == 10 for w in inner.split())


def test_match_at_the_end_is_kept_when_the_old_rule_would_drop_it() -> None:
    kept = window(TEXT, len(TEXT) - 50, len(TEXT), 600)
    assert kept.startswith(ELLIPSIS) and not kept.endswith(ELLIPSIS)
    assert TEXT[-50:].strip() in kept
    assert TEXT[:600] not in kept  # the old rule: cut from the start


def test_context_block_uses_card_ids_and_windows() -> None:
    chunk = context_chunk("card-017", TEXT, title="Varfarina", matched=(2000, 2199))
    block = context_block([chunk], 600)
    assert block.startswith('<card id="card-017" title="Varfarina">\n' + ELLIPSIS)
    assert TEXT[2000:2199] in block
