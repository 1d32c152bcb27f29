"""A logistic regression shipped as JSON: the answerability model (answerability_model.json),
the part model (part_model.json) and the card ranker (card_ranker.json) are read and applied
here.

The JSON was written by scikit-learn at training time: the features it was trained on, in
order ("features"), their standardisation ("mean", "scale"), and its weights ("coef",
"intercept"); serving needs no scikit-learn.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np


def load_logistic(path: Path, expected: tuple[str, ...], retrain: str) -> dict[str, Any]:
    """The model at `path`, refused when it was trained on other features than `expected`
    (the error names those missing, those extra, or that the order differs, and `retrain`,
    the command that trains it again)."""
    model: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    trained = list(model["features"])
    if trained != list(expected):
        missing = [f for f in expected if f not in trained]
        extra = [f for f in trained if f not in expected]
        found = [f"missing {', '.join(missing)}"] if missing else []
        found += [f"extra {', '.join(extra)}"] if extra else []
        detail = "; ".join(found) or "the same features in another order"
        raise ValueError(f"{path}: trained on other features ({detail}); retrain ({retrain})")
    return model


def logistic(values: dict[str, float], model: dict[str, Any]) -> float:
    """The model's probability for `values` (a value for each of its features, by name)."""
    x = np.array([values[f] for f in model["features"]], dtype=float)
    mean, scale = np.array(model["mean"]), np.array(model["scale"])
    z = float(np.dot((x - mean) / scale, np.array(model["coef"])) + model["intercept"])
    return 1.0 / (1.0 + math.exp(-z))


def logistic_rows(x: np.ndarray, model: dict[str, Any]) -> np.ndarray:
    """The model's probability for each row of `x` (its features, in the model's order)."""
    if not len(x):
        return np.zeros(0)
    mean, scale = np.array(model["mean"]), np.array(model["scale"])
    z = ((np.asarray(x, dtype=float) - mean) / scale) @ np.array(model["coef"]) + model["intercept"]
    out: np.ndarray = 1.0 / (1.0 + np.exp(-z))
    return out
