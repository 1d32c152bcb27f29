"""What kind of question it is (when, with food, a missed dose, a side effect, ...): a small
learned model over the question's embedding.

One logistic regression per intent of app.agent.sentence_labels.INTENTS (one-vs-rest,
scikit-learn at training time), trained on the tuning authors' questions of kb/questions,
each labelled with the intents of the sentences that answer it (kb/sentences.yaml):
`python -m evaluation.sentence_scorer` retrains it with the sentence scorer. Serving reads
the weights from intent_model.json: one matrix-vector product per question.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from app.agent.sentence_labels import INTENTS

INTENT_MODEL_PATH = Path(__file__).resolve().with_name("intent_model.json")


class IntentModel:
    def __init__(self, classes: list[str], coef: np.ndarray, intercept: np.ndarray, model: str):
        if list(classes) != list(INTENTS):
            raise ValueError("intent model trained on other intents; retrain it")
        self.classes = list(classes)
        self.coef = np.asarray(coef, dtype=np.float32)
        self.intercept = np.asarray(intercept, dtype=np.float32)
        self.embedding_model = model

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> IntentModel:
        return cls(
            data["classes"], np.array(data["coef"]), np.array(data["intercept"]), data["model"]
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "classes": self.classes,
            "model": self.embedding_model,
            "coef": np.round(self.coef, 5).tolist(),
            "intercept": np.round(self.intercept, 5).tolist(),
        }

    def predict(self, vector: np.ndarray) -> np.ndarray:
        """P(intent) for each intent, in INTENTS order."""
        z = self.coef @ np.asarray(vector, dtype=np.float32) + self.intercept
        out: np.ndarray = 1.0 / (1.0 + np.exp(-z))
        return out

    def vector_of(self, intents: tuple[str, ...] | list[str]) -> np.ndarray:
        out = np.zeros(len(self.classes), dtype=np.float32)
        for name in intents:
            out[self.classes.index(name)] = 1.0
        return out


@lru_cache(maxsize=2)
def load_intent_model(path: Path = INTENT_MODEL_PATH) -> IntentModel | None:
    """The trained model, or None before the first training."""
    if not path.exists():
        return None
    return IntentModel.from_json(json.loads(path.read_text(encoding="utf-8")))
