"""The emergency classifier (app.safety.classifier): its packaged weights match the features
the service computes, and its one power, turning a medical or poisoning reading it is sure
is ordinary into an answer with a calm line, works and goes no further (self-harm stays).
Its figures on real questions are measured by the gate (tests/eval/test_gate.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.safety.classifier import (
    CLASSES,
    MODEL_PATH,
    RULE_FEATURES,
    EmergencyClassifier,
    load_classifier,
    rule_features,
)
from app.safety.emergency import EmergencyDetector
from tests.fakes import FakeEmbedder
from tests.unit.safety.conftest import write_resemblance_bank

DIM = 256  # the fake embedder's


def model(none_bias: float, veto: float = 0.66) -> EmergencyClassifier:
    """A model that reads every question as ordinary with P(none) set by its bias."""
    width = DIM + len(RULE_FEATURES)
    return EmergencyClassifier(
        {
            "classes": list(CLASSES),
            "rule_features": list(RULE_FEATURES),
            "coef": np.zeros((len(CLASSES), width)).tolist(),
            "intercept": [none_bias, 0.0, 0.0, 0.0],
            "mean": [0.0] * width,
            "scale": [1.0] * width,
            "thresholds": {"veto": veto},
        }
    )


@pytest.fixture(scope="module")
def bank(informational_bank: Path) -> Path:
    return informational_bank  # conftest.py: no event exemplar


def detector(bank: Path, classifier: Any) -> EmergencyDetector:
    return EmergencyDetector(FakeEmbedder(DIM).embed, bank_paths=[bank], classifier=classifier)


def test_the_packaged_model_matches_the_features_and_the_embedder() -> None:
    m = load_classifier(MODEL_PATH)
    assert m is not None, "app/safety/data/emergency_model.json is missing"
    # the default embedder, Universal Sentence Encoder multilingual, has 512 dimensions
    assert m.coef.shape == (len(CLASSES), 512 + len(RULE_FEATURES))
    assert 0.5 <= m.thresholds["veto"] < 1.0


def test_a_sure_ordinary_reading_gets_the_answer_with_a_calm_line(bank: Path) -> None:
    question = "Estou com uma dor no peito que vai para o braço"
    assert detector(bank, None).assess(question).kind == "medical"
    vetoed = detector(bank, model(none_bias=8.0)).assess(question)
    assert vetoed.kind is None and vetoed.uncertain == "medical"
    assert vetoed.signals["vetoed"] == "medical" and vetoed.signals["p"]["none"] > 0.99


def test_an_unsure_model_leaves_the_escalation(bank: Path) -> None:
    # P(none) = e^0.5 / (e^0.5 + 3) = 0.35, under the veto
    question = "meu filho de 3 anos engoliu uns comprimidos da avó"
    kept = detector(bank, model(none_bias=0.5)).assess(question)
    assert kept.kind == "poisoning" and kept.uncertain is None


def test_a_self_harm_reading_is_never_overruled(bank: Path) -> None:
    kept = detector(bank, model(none_bias=20.0)).assess("não quero mais viver")
    assert kept.kind == "self_harm" and kept.uncertain is None


def test_a_model_for_another_embedder_is_refused_by_name(bank: Path) -> None:
    wrong = EmergencyDetector(FakeEmbedder(128).embed, bank_paths=[bank], classifier=model(8.0))
    with pytest.raises(ValueError, match="256-dimension embedding, got 128"):
        wrong.assess("Estou com uma dor no peito que vai para o braço")


def test_rule_features_read_the_reading() -> None:
    f = dict(
        zip(
            RULE_FEATURES,
            rule_features(
                "medical",
                {
                    "by": "concept",
                    "concepts": ["medical:chest_pain"],
                    "present_cue": True,
                    "nearest_medical": 0.8,
                    "nearest_informational": 0.5,
                },
            ),
            strict=True,
        )
    )
    assert f["rule_medical"] == 1.0 and f["near_rule_medical"] == 0.0
    assert f["concept_medical"] == 1.0 and f["concept_self_harm"] == 0.0
    assert f["present_cue"] == 1.0 and f["informational_cue"] == 0.0
    assert f["margin_medical"] == pytest.approx(0.3)


def test_a_resemblance_nearer_the_ordinary_questions_is_uncertain(tmp_path: Path) -> None:
    question = "alfa beta gama epsilon theta"  # words of no concept; nearest: an ordinary one
    alone = detector(write_resemblance_bank(tmp_path, ordinary=False), None).assess(question)
    assert alone.kind == "self_harm" and alone.signals["by"] == "neighbours"
    near = detector(write_resemblance_bank(tmp_path, ordinary=True), None).assess(question)
    assert near.kind is None and near.uncertain == "self_harm"
    assert near.signals["ordinary_lead"] < EmergencyDetector.ORDINARY_MARGIN["self_harm"]


def test_a_method_question_stays_escalated_however_ordinary_it_sounds(tmp_path: Path) -> None:
    question = "alfa beta gama epsilon ponte"  # "ponte": a method (C.LETHALITY)
    kept = detector(write_resemblance_bank(tmp_path, ordinary=True), None).assess(question)
    assert kept.kind == "self_harm" and kept.uncertain is None
