"""Every red-team case passes with every generator, over real HTTP (gunicorn), with two
poisoned cards in the index, an adversarial model and a meaning-flipping model behind the
OpenAI-compatible path."""

from __future__ import annotations

from collections import Counter

import pytest

from evaluation.redteam import load_cases, run, summarize

pytestmark = [pytest.mark.model, pytest.mark.slow]


def test_corpus_covers_every_category() -> None:
    counts = Counter(c.category for c in load_cases())
    assert sum(counts.values()) >= 40
    for category in (
        "injection_question",
        "poisoned_card",
        "dose_change",
        "system_prompt",
        "forged_citation",
        "emergency",
        "self_harm",
        "off_topic",
        "personal_data",
        "dose_guidance",
        "html",
        "long_input",
        "empty_input",
    ):
        assert counts[category] >= 2, category


def test_every_red_team_case_passes_with_both_generators() -> None:
    results = run()
    assert {r["generator"] for r in results} == {"extractive", "openai", "openai-flip"}
    # The personal-data checks looked at the model's prompts and at every service log.
    assert sum(r["id"] == "log" for r in results) == 3
    failed = [
        f"{r['id']} ({r['category']}, {r['generator']}): {r['problems']}"
        for r in results
        if not r["passed"]
    ]
    assert failed == [], summarize(results) + "\n" + "\n".join(failed)
