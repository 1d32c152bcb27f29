"""The emergency detector's second exemplar bank is generated from the tuning halves only,
and is in sync with them."""

from __future__ import annotations

import yaml

from app.safety.emergency import load_bank_items
from evaluation.banks import TUNE_BANK, render
from evaluation.golden import load_golden, load_safety


def test_the_tuning_bank_is_in_sync_with_the_tuning_halves() -> None:
    assert TUNE_BANK.read_text(encoding="utf-8") == render(), (
        "app/safety/data/emergency_bank_tune.yaml is stale: run python -m evaluation.banks"
    )


def test_no_test_half_question_is_an_exemplar() -> None:
    exemplars = {text for _, _, text in load_bank_items()}
    test_questions = {c.question for c in load_safety(split="test")} | {
        c.question for c in load_golden(split="test")
    }
    assert exemplars & test_questions == set()


def test_every_exemplar_group_has_a_known_kind() -> None:
    groups = yaml.safe_load(TUNE_BANK.read_text(encoding="utf-8"))
    assert {g["kind"] for g in groups} <= {
        "medical",
        "poisoning",
        "self_harm",
        "informational",
        "ordinary",
    }
