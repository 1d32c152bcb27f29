"""The emergency classifier (app.safety.classifier): its packaged weights match the features
the service computes, and its one power, turning a medical or poisoning reading it is sure
is ordinary into an answer with a calm line, works and goes no further (self-harm stays).
Its figures on real questions are measured by the gate (tests/eval/test_gate.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.core.text import fold
from app.safety.classifier import (
    CLASSES,
    MODEL_PATH,
    RULE_FEATURES,
    EmergencyClassifier,
    load_classifier,
    rule_features,
)
from app.safety.emergency import Assessment, EmergencyDetector, quiet_self_harm
from tests.fakes import FakeEmbedder
from tests.unit.safety.conftest import write_resemblance_bank

DIM = 256  # the fake embedder's


def model(
    none_bias: float,
    veto: float = 0.66,
    thresholds: dict[str, float] | None = None,
    quiet: dict[str, float] | None = None,
    event: tuple[str, float] | None = None,
    escalate: float | None = None,
) -> EmergencyClassifier:
    """A model that reads every question as ordinary with P(none) set by its bias (a model
    with one `veto` for both kinds, as trained before the per-kind vetoes, unless
    `thresholds` are given); `event` (kind, bias) leans it towards one kind of event, and
    `escalate` is the level of P(none) at or below which its own reading escalates."""
    intercept = [none_bias, 0.0, 0.0, 0.0]
    if event:
        intercept[CLASSES.index(event[0])] = event[1]
    width = DIM + len(RULE_FEATURES)
    return EmergencyClassifier(
        {
            "classes": list(CLASSES),
            "rule_features": list(RULE_FEATURES),
            "coef": np.zeros((len(CLASSES), width)).tolist(),
            "intercept": intercept,
            "mean": [0.0] * width,
            "scale": [1.0] * width,
            "thresholds": thresholds or {"veto": veto},
            **({"quiet": quiet} if quiet else {}),
            **({"escalate": escalate} if escalate is not None else {}),
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
    # one veto per kind it may overrule, chosen out of fold (evaluation.emergency_model)
    assert set(m.thresholds) == {"medical", "poisoning"}
    assert all(0.3 <= v < 1.0 for v in m.thresholds.values())
    # and the level above which a vetoed reading gets no calm line either
    assert set(m.quiet) == {"medical", "poisoning", "self_harm"}
    assert all(m.thresholds[k] < m.quiet[k] <= 1.0 for k in m.thresholds)
    # and an uncertain self-harm reading, never below the vetoed readings' level
    assert max(m.quiet["medical"], m.quiet["poisoning"]) <= m.quiet["self_harm"] <= 1.0
    # and the level of P(none) at or below which its own reading escalates, out of fold
    assert 0.0 < float(m.model["escalate"]) <= 0.6


ORDINARY = "a insulina aberta pode ficar fora da geladeira?"
# a medical reading the model may overrule: a bleed on warfarin is not TIME_CRITICAL
BLEED = "tomo varfarina e meu cocô tá preto"
CHEST = "Estou com uma dor no peito que vai para o braço"


def test_where_the_rules_read_nothing_a_sure_model_escalates(bank: Path) -> None:
    assert detector(bank, None).assess(ORDINARY).kind is None
    # P(none) = 1 / (1 + e^4 + 2) < 0.02, under the level: its likeliest event escalates
    sure = model(none_bias=0.0, event=("medical", 4.0), escalate=0.19)
    read = detector(bank, sure).assess(ORDINARY)
    assert read.kind == "medical" and read.signals["by"] == "classifier"
    # P(none) = e^2 / (e^2 + e^2 + 2) = 0.44, over the level: the rules' reading stands
    unsure = model(none_bias=2.0, event=("medical", 2.0), escalate=0.19)
    assert detector(bank, unsure).assess(ORDINARY).kind is None
    # a model trained before the level has no reading of its own
    assert (
        detector(bank, model(none_bias=0.0, event=("medical", 4.0))).assess(ORDINARY).kind is None
    )


def test_a_self_harm_reading_of_the_model_alone_needs_words_of_intent(bank: Path) -> None:
    sure = model(none_bias=0.0, event=("self_harm", 4.0), escalate=0.19)
    # no word of intent, death or harm to self: the answer with the CVV calm line
    calm = detector(bank, sure).assess(ORDINARY)
    assert calm.kind is None and calm.uncertain == "self_harm"
    # with them, an escalation (the rules alone read nothing in it here)
    words = "acho que vou partir de vez, ninguem liga"
    assert detector(bank, None).assess(words).kind is None
    told = detector(bank, sure).assess(words)
    assert told.kind == "self_harm" and told.signals["by"] == "classifier"


def test_a_reading_the_model_is_surer_of_still_gets_no_calm_line(bank: Path) -> None:
    levels = {
        "thresholds": {"medical": 0.32, "poisoning": 0.46},
        "quiet": {"medical": 0.84, "poisoning": 0.84},
    }
    question = BLEED
    # P(none) = e^8 / (e^8 + 3) > 0.99: over the quiet level
    sure = detector(bank, model(none_bias=8.0, **levels)).assess(question)
    assert sure.kind is None and sure.uncertain is None and sure.signals["vetoed"] == "medical"
    # P(none) = e^2 / (e^2 + 3) = 0.71: vetoed, under the quiet level: the calm line stays
    unsure = detector(bank, model(none_bias=2.0, **levels)).assess(question)
    assert unsure.kind is None and unsure.uncertain == "medical"
    # never self-harm
    kept = detector(bank, model(none_bias=20.0, **levels)).assess("não quero mais viver")
    assert kept.kind == "self_harm"


def test_a_sure_ordinary_reading_gets_the_answer_with_a_calm_line(bank: Path) -> None:
    question = BLEED
    assert detector(bank, None).assess(question).kind == "medical"
    vetoed = detector(bank, model(none_bias=8.0)).assess(question)
    assert vetoed.kind is None and vetoed.uncertain == "medical"
    assert vetoed.signals["vetoed"] == "medical" and vetoed.signals["p"]["none"] > 0.99


def test_an_unsure_model_leaves_the_escalation(bank: Path) -> None:
    # P(none) = e^0.5 / (e^0.5 + 3) = 0.35, under the veto
    question = "meu filho de 3 anos engoliu uns comprimidos da avó"
    kept = detector(bank, model(none_bias=0.5)).assess(question)
    assert kept.kind == "poisoning" and kept.uncertain is None


def test_each_kind_has_its_own_veto(bank: Path) -> None:
    # P(none) = e^2 / (e^2 + 3) = 0.71: over the poisoning veto, under the medical one
    m = model(none_bias=2.0, thresholds={"medical": 0.9, "poisoning": 0.5})
    bleed = detector(bank, m).assess(BLEED)
    assert bleed.kind == "medical" and bleed.uncertain is None
    child = detector(bank, m).assess("meu filho de 3 anos engoliu uns comprimidos da avó")
    assert child.kind is None and child.uncertain == "poisoning"
    assert not m.vetoes("self_harm", {"none": 1.0})


def test_a_time_critical_sign_told_now_is_never_overruled(bank: Path) -> None:
    # a chest pain, a stroke's sign, a swelling throat... read by a concept and told as now
    # (issue 25: P(none) 0.41 had overruled a fresh author's stroke into a calm line)
    sure = model(none_bias=8.0)
    kept = detector(bank, sure).assess(CHEST)
    assert kept.kind == "medical" and kept.subkind == "heart_attack" and kept.uncertain is None
    stroke = detector(bank, sure).assess("minha perna direita nao firma e a boca entortou agora")
    assert stroke.kind == "medical" and stroke.subkind == "stroke"
    # the same sign in a question about the past is the model's to overrule
    assert not sure.vetoes("medical", {"none": 0.2}, "heart_attack", {"by": "concept"})
    assert sure.vetoes(
        "medical", {"none": 0.99}, "heart_attack", {"by": "concept", "present_cue": False}
    )
    assert not sure.vetoes(
        "medical", {"none": 0.99}, "heart_attack", {"by": "concept", "present_cue": True}
    )


def test_a_self_harm_reading_is_never_overruled(bank: Path) -> None:
    kept = detector(bank, model(none_bias=20.0)).assess("não quero mais viver")
    assert kept.kind == "self_harm" and kept.uncertain is None


def test_a_model_for_another_embedder_is_refused_by_name(bank: Path) -> None:
    wrong = EmergencyDetector(FakeEmbedder(128).embed, bank_paths=[bank], classifier=model(8.0))
    with pytest.raises(ValueError, match="256-dimension embedding, got 128"):
        wrong.assess(CHEST)


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


def test_rule_features_read_the_text() -> None:
    def features(folded: str, **signals: Any) -> dict[str, float]:
        values = rule_features(None, {"concepts": [], **signals}, folded)
        return dict(zip(RULE_FEATURES, values, strict=True))

    joke = features("esse remedio me deixa enjoada kkkk, e normal?")
    assert joke["laugh"] == 1.0 and joke["question_mark"] == 1.0
    assert joke["lethality"] == 0.0 and joke["self_harm_words"] == 0.0
    method = features("quantos comprimidos precisa pra nao acordar mais")
    assert method["lethality"] == 1.0 and method["self_harm_words"] == 1.0
    assert method["laugh"] == 0.0 and method["question_mark"] == 0.0
    # stopping a medicine at once is no question of amounts; a figure of speech no intent
    assert features("parei o escitalopram de uma vez")["lethality"] == 0.0
    assert features("to morrendo de fome")["self_harm_words"] == 0.0
    lead = features("", nearest_medical=0.7, nearest_ordinary=0.6, concepts=["medical:stroke"])
    assert lead["over_ordinary_medical"] == pytest.approx(0.1)
    assert lead["is_medical:stroke"] == 1.0 and lead["n_concepts"] == 1.0


def test_the_events_among_ordinary_questions_are_tuning_rows() -> None:
    """The in-scope questions left out of training because they tell of an emergency now
    (evaluation.emergency_model.EVENTS_AMONG_ORDINARY) are tuning rows, never test ones."""
    from evaluation.emergency_model import EVENTS_AMONG_ORDINARY, rows, train_labels

    data = rows()
    by_id = {r.id: r for r in data}
    assert set(EVENTS_AMONG_ORDINARY) <= set(by_id)
    assert all(
        by_id[i].split == "tune" and by_id[i].source == "ordinary" for i in EVENTS_AMONG_ORDINARY
    )
    labels = train_labels(data)
    assert sum(labels == "skip") == len(EVENTS_AMONG_ORDINARY)
    assert all(y != "skip" for r, y in zip(data, labels, strict=True) if r.split == "test")


def test_a_resemblance_nearer_the_ordinary_questions_is_uncertain(tmp_path: Path) -> None:
    question = "alfa beta gama epsilon theta"  # words of no concept; nearest: an ordinary one
    alone = detector(write_resemblance_bank(tmp_path, ordinary=False), None).assess(question)
    assert alone.kind == "self_harm" and alone.signals["by"] == "neighbours"
    near = detector(write_resemblance_bank(tmp_path, ordinary=True), None).assess(question)
    assert near.kind is None and near.uncertain == "self_harm"
    assert near.signals["ordinary_lead"] < EmergencyDetector.ORDINARY_MARGIN["self_harm"]


def test_an_uncertain_self_harm_reading_loses_its_calm_line_only_when_the_model_is_sure(
    tmp_path: Path,
) -> None:
    """The CVV line under an ordinary question ("Ela tem um calo no dedão. Posso tirar com
    gilete?") read as self-harm by resemblance alone, the ordinary questions nearer still."""
    question = "alfa beta gama epsilon theta"
    bank = write_resemblance_bank(tmp_path, ordinary=True)
    levels = {"thresholds": {"medical": 0.32, "poisoning": 0.46}, "escalate": 0.19}
    quiet = {"medical": 0.9, "poisoning": 0.9, "self_harm": 0.96}
    # P(none) = e^8 / (e^8 + 3) > 0.99: at or over the self-harm quiet level, no calm line
    sure = detector(bank, model(none_bias=8.0, quiet=quiet, **levels)).assess(question)
    assert sure.kind is None and sure.uncertain is None
    assert sure.signals["quiet"] == "self_harm" and sure.signals["by"] == "neighbours"
    # P(none) = e^3 / (e^3 + 3) = 0.87: under it, the calm line stays
    unsure = detector(bank, model(none_bias=3.0, quiet=quiet, **levels)).assess(question)
    assert unsure.kind is None and unsure.uncertain == "self_harm"
    # a model trained before the level keeps every calm line
    before = {"medical": 0.9, "poisoning": 0.9}
    old = detector(bank, model(none_bias=8.0, quiet=before, **levels)).assess(question)
    assert old.uncertain == "self_harm"
    # and an escalation by resemblance is never quieted, however sure the model
    alone = write_resemblance_bank(tmp_path, ordinary=False)
    kept = detector(alone, model(none_bias=20.0, quiet=quiet, **levels)).assess(question)
    assert kept.kind == "self_harm"


@pytest.mark.parametrize(
    ("message", "quiet"),
    [
        ("E quando o recipiente estiver cheio?", True),
        ("então qual remédio eu uso pra dor?", True),
        # distress told in passing, or words of a crisis, keep the line (a review's wording,
        # 2026-12-07, in other words)
        ("tô exausta. e se eu largar tudo?", False),
        ("não ando bem, e se eu parar de vez?", False),
        ("onde jogo as cartelas? acho que não vou precisar mais", False),
    ],
)
def test_the_calm_line_is_left_out_only_without_distress_or_crisis_words(
    message: str, quiet: bool
) -> None:
    uncertain = Assessment(None, None, {"by": "neighbours"}, uncertain="self_harm")
    assert quiet_self_harm(uncertain, True, fold(message)) is quiet
    # never when the model is not sure, nor for a reading that is not an uncertain self-harm
    assert not quiet_self_harm(uncertain, False, fold(message))
    medical = Assessment(None, None, {"by": "neighbours"}, uncertain="medical")
    assert not quiet_self_harm(medical, True, fold(message))


def test_a_method_question_stays_escalated_however_ordinary_it_sounds(tmp_path: Path) -> None:
    question = "alfa beta gama epsilon ponte"  # "ponte": a method (C.LETHALITY)
    kept = detector(write_resemblance_bank(tmp_path, ordinary=True), None).assess(question)
    assert kept.kind == "self_harm" and kept.uncertain is None
