"""The part model (app/agent/part_model.json): trained on the features the agent computes,
and it reads them the way it was trained (issue 24)."""

from __future__ import annotations

from app.agent.partial import PART_FEATURES, load_part_model, p_uncovered


def test_the_shipped_model_matches_the_features_and_says_how_it_was_measured() -> None:
    model = load_part_model()
    assert model["features"] == list(PART_FEATURES)
    assert len(model["coef"]) == len(model["mean"]) == len(model["scale"]) == len(PART_FEATURES)
    assert 0.0 < model["threshold"] < 1.0
    cv = model["out_of_author"]
    assert cv["covered_named"] <= 0.02 and cv["uncovered_named"] > 0.2, cv


def test_a_part_the_cards_cover_is_not_named_and_an_uncovered_aspect_is() -> None:
    model = load_part_model()
    covered = {
        "p_covered": 0.95,
        "answer_p": 0.99,
        "example_sim": 0.8,
        "aspect": 0.0,
        "own_terms": 3.0,
        "names_covered": 1.0,
        "whole_p": 0.95,
        "borrows_uncovered": 0.0,
        "terms": 4.0,
        "bank_out_1": 0.637,
        "bank_in_1": 0.872,
    }
    # "e ela engorda?" after "a sinvastatina eu tomo de noite?", as the agent measured it
    # (2026-12-06; its nearest known questions measured 2026-12-08): the part's own
    # answerability says no, while the scorer's best line and the example questions of the
    # statin card still look close (they saturate on the name); the nearest known question
    # is an out-of-scope one
    uncovered = {
        "p_covered": 0.001,
        "answer_p": 0.761,
        "example_sim": 0.71,
        "aspect": 0.0,
        "own_terms": 1.0,
        "names_covered": 0.0,
        "whole_p": 0.978,
        "borrows_uncovered": 0.0,
        "terms": 1.0,
        "bank_out_1": 0.727,
        "bank_in_1": 0.538,
    }
    assert p_uncovered(covered, model) < model["threshold"] <= p_uncovered(uncovered, model)


def test_a_model_trained_on_other_features_is_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    import pytest

    path = tmp_path / "part_model.json"
    path.write_text(json.dumps({**load_part_model(), "features": ["p_covered"]}))
    with pytest.raises(ValueError, match="retrain"):
        load_part_model(path)
