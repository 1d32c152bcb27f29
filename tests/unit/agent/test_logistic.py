"""The logistic regression shipped as JSON (app.agent.logistic), as the answerability and
part models read it: refused when trained on other features, and applied as trained."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from app.agent.answerability import load_model
from app.agent.logistic import load_logistic, logistic

MODEL: dict[str, Any] = {
    "features": ["a", "b", "c"],
    "mean": [0.5, -2.0, 3.25],
    "scale": [2.0, 0.5, 4.0],
    "coef": [1.5, -0.75, 0.2],
    "intercept": -0.4,
    "threshold": 0.5,
}


def _write(path: Path, model: dict[str, Any]) -> Path:
    path.write_text(json.dumps(model), encoding="utf-8")
    return path


def test_a_model_as_trained_is_loaded(tmp_path: Path) -> None:
    path = _write(tmp_path / "model.json", MODEL)
    assert load_logistic(path, ("a", "b", "c"), "python -m evaluation.x") == MODEL


def test_a_model_trained_on_other_features_is_refused_naming_them(tmp_path: Path) -> None:
    path = _write(tmp_path / "model.json", {**MODEL, "features": ["a", "c", "d"]})
    with pytest.raises(ValueError) as refused:
        load_logistic(path, ("a", "b", "c"), "python -m evaluation.x")
    message = str(refused.value)
    assert "missing b" in message and "extra d" in message, message
    assert str(path) in message and "retrain (python -m evaluation.x)" in message, message


def test_a_model_with_its_features_in_another_order_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "model.json", {**MODEL, "features": ["c", "b", "a"]})
    with pytest.raises(ValueError, match="another order"):
        load_logistic(path, ("a", "b", "c"), "python -m evaluation.x")


def test_the_answerability_model_is_refused_the_same_way(tmp_path: Path) -> None:
    path = _write(tmp_path / "answerability_model.json", {**MODEL, "features": ["top_sim"]})
    with pytest.raises(ValueError, match=r"missing margin.*evaluation\.answerability"):
        load_model(path)


def test_at_the_mean_it_is_the_sigmoid_of_the_intercept() -> None:
    mean = dict(zip(MODEL["features"], MODEL["mean"], strict=True))
    assert logistic(mean, MODEL) == 1.0 / (1.0 + math.exp(-MODEL["intercept"]))


def test_it_standardises_each_value_and_weighs_it_by_its_coefficient() -> None:
    values = {"c": 7.25, "a": 2.5, "b": -1.0, "unused": 99.0}
    # (2.5-0.5)/2*1.5 + (-1+2)/0.5*-0.75 + (7.25-3.25)/4*0.2 - 0.4 = 1.5 - 1.5 + 0.2 - 0.4
    assert logistic(values, MODEL) == pytest.approx(1.0 / (1.0 + math.exp(0.2)), abs=1e-12)
