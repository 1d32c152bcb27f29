"""The emergency classifier (issue 25): a small learned model over the question's embedding
and what the rules read in it, instead of the nearest exemplars alone.

A multinomial logistic regression (scikit-learn at training time,
`python -m evaluation.emergency_model`; weights in data/emergency_model.json at serving)
gives P(none), P(medical), P(poisoning), P(self_harm). It is trained on every labelled
safety case of the tuning half and on the ordinary in-scope questions of every tuning set
as negatives, each read leave-one-out (an exemplar identical to the question is skipped).

RULE_FEATURES are read off the rules' assessment (app.safety.emergency): which kind the
rules found and how (a concept or the nearest exemplars), the concepts (and which of them),
the tense and framing cues, the similarity to the nearest exemplars of each kind and the
lead over the ordinary questions, and a few things of the text itself: words of lethality
or of self-harm, its length, a question mark, a laugh ("kkk").
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from app.safety.concepts import C
from app.safety.reading import literal

MODEL_PATH = Path(__file__).resolve().parent / "data" / "emergency_model.json"
CLASSES = ("none", "medical", "poisoning", "self_harm")
KINDS = ("medical", "poisoning", "self_harm")
VETOED = ("medical", "poisoning")  # the readings the model may overrule (never self-harm)
QUIETED = (*VETOED, "self_harm")  # calm lines the model may leave out (quiets)
_CUES = (
    "informational_cue",
    "present_cue",
    "negated_sign",
    "resolved_cue",
    "habitual_cue",
    "generic_question",
    "hypothetical",
    "not_own_intent",
)
_NEAR = ("medical", "poisoning", "self_harm", "informational", "ordinary")
# the concepts seen at least 5 times in the tuning rows (python -m evaluation.emergency_model)
_CONCEPTS = (
    *(
        f"medical:{s}"
        for s in (
            "anaphylaxis", "bleeding", "breathing", "confusion", "dehydration", "heart_attack",
            "hypertensive_crisis", "hypoglycaemia", "seizure", "stroke", "unconscious",
        )
    ),
    "poisoning:poisoning",
    *(f"self_harm:{s}" for s in ("explicit", "implicit", "method", "topic")),
)  # fmt: skip
LAUGH = re.compile(r"\bk{3,}\b|\bhaha|\brs\b")
RULE_FEATURES = (
    *(f"rule_{k}" for k in KINDS),
    *(f"near_rule_{k}" for k in KINDS),
    "concept_medical",
    "concept_poisoning",
    "concept_self_harm",
    "concept_self_harm_topic",
    *_CUES,
    *(f"nearest_{k}" for k in _NEAR),
    *(f"margin_{k}" for k in KINDS),
    *(f"is_{c}" for c in _CONCEPTS),
    *(f"over_ordinary_{k}" for k in (*KINDS, "informational")),
    "lethality",
    "self_harm_words",
    "own_double_well",
    "log_words",
    "question_mark",
    "laugh",
    "n_concepts",
)


def rule_features(kind: str | None, signals: dict[str, Any], folded: str = "") -> np.ndarray:
    """RULE_FEATURES of one rules' assessment (its kind and signals) of the accent-folded
    question `folded`."""
    by = signals.get("by")
    concepts = [str(c) for c in signals.get("concepts", [])]
    near = {k: float(signals.get(f"nearest_{k}", 0.0)) for k in _NEAR}
    values = [
        *(float(kind == k and by == "concept") for k in KINDS),
        *(float(kind == k and by == "neighbours") for k in KINDS),
        float(any(c.startswith("medical:") for c in concepts)),
        float(any(c.startswith("poisoning:") for c in concepts)),
        float(any(c.startswith("self_harm:") and c != "self_harm:topic" for c in concepts)),
        float("self_harm:topic" in concepts),
        *(float(bool(signals.get(c))) for c in _CUES),
        *(near[k] for k in _NEAR),
        *(near[k] - near["informational"] for k in KINDS),
        *(float(c in concepts) for c in _CONCEPTS),
        *(near[k] - near["ordinary"] for k in (*KINDS, "informational")),
        float(bool(C.LETHALITY.search(C.STOPPING_AT_ONCE.sub(" ", folded)))),
        float(bool(C.SELF_HARM_EVIDENCE.search(literal(folded)))),
        float(bool(signals.get("own_double_well"))),
        math.log1p(len(folded.split())),
        float("?" in folded),
        float(bool(LAUGH.search(folded))),
        float(len(concepts)),
    ]
    return np.array(values, dtype=np.float32)


class EmergencyClassifier:
    def __init__(self, model: dict[str, Any]):
        if list(model["classes"]) != list(CLASSES) or list(model["rule_features"]) != list(
            RULE_FEATURES
        ):
            raise ValueError(
                f"{MODEL_PATH.name}: trained on other classes or features; retrain it "
                "(python -m evaluation.emergency_model)"
            )
        self.model = model
        self.coef = np.asarray(model["coef"], dtype=np.float32)  # classes x (dim + rules)
        self.intercept = np.asarray(model["intercept"], dtype=np.float32)
        self.mean = np.asarray(model["mean"], dtype=np.float32)
        self.scale = np.asarray(model["scale"], dtype=np.float32)
        self.thresholds: dict[str, float] = dict(model["thresholds"])
        self.quiet: dict[str, float] = dict(model.get("quiet", {}))

    def inputs(self, vector: np.ndarray, rules: np.ndarray) -> np.ndarray:
        x = np.concatenate([np.asarray(vector, dtype=np.float32), rules])
        if x.shape[0] != self.mean.shape[0]:
            raise ValueError(
                f"{MODEL_PATH.name} expects a {self.mean.shape[0] - len(RULE_FEATURES)}-"
                f"dimension embedding, got {len(vector)}: retrain it with this embedder "
                "(python -m evaluation.emergency_model)"
            )
        return (x - self.mean) / self.scale

    def vetoes(
        self,
        kind: str | None,
        p: dict[str, float],
        subkind: str | None = None,
        signals: dict[str, Any] | None = None,
    ) -> bool:
        """Whether a medical or poisoning reading is overruled: P(none) at or above that kind's
        veto (`thresholds[kind]`; a model trained before the per-kind vetoes has one, `veto`).
        Never a self-harm reading."""
        if kind not in VETOED:
            return False
        veto = self.thresholds.get(kind, self.thresholds.get("veto", 2.0))
        return overrules(kind, subkind, signals or {}, p, veto)

    def quiets(self, kind: str | None, p: dict[str, float]) -> bool:
        """Whether a reading that escalates nothing is also left without its calm line: P(none)
        at or above that kind's `quiet` level. For a vetoed medical or poisoning reading the
        level is set above every tuning emergency of that kind the veto overruled (out of
        fold), so such an emergency keeps its calm line. For a self-harm reading too weak to
        escalate on (uncertain: a resemblance the ordinary questions outweigh), above every
        tuning event of any kind whose reading was uncertain (uncertain_level in
        evaluation.emergency_model). An uncertain medical or poisoning reading keeps its
        calm line: it names a sign to watch, which a clinical reader judged right there."""
        return kind in QUIETED and p["none"] >= self.quiet.get(str(kind), 2.0)

    def escalates(self, p: dict[str, float]) -> str | None:
        """The kind the model reads on its own where the rules read none (own_reading at this
        model's `escalate` level; None for a model without it)."""
        return own_reading(p, self.model.get("escalate"))

    def probabilities(self, vector: np.ndarray, rules: np.ndarray) -> dict[str, float]:
        z = self.coef @ self.inputs(vector, rules) + self.intercept
        e = np.exp(z - z.max())
        p = e / e.sum()
        return {c: float(v) for c, v in zip(CLASSES, p, strict=True)}


# Signs whose hour counts, read by a concept as happening now: never overruled by the model.
TIME_CRITICAL = frozenset(
    ("stroke", "heart_attack", "anaphylaxis", "breathing", "unconscious", "seizure")
)


def overrules(
    kind: str | None, subkind: str | None, signals: dict[str, Any], p: dict[str, float], veto: float
) -> bool:
    """Whether the model overrules a medical or poisoning reading of the rules: P(none) at
    or above the kind's veto, unless the rules read a time-critical sign (TIME_CRITICAL) by
    its concept, told as now. Before, P(none) 0.41 overruled a stroke ("to vendo tudo
    dobrado desde agorinha e a perna direita nao firma ... da pra esperar passar?", a fresh
    author's, s8) into a calm line. The service and the training share it."""
    if kind not in VETOED or p["none"] < veto:
        return False
    now = signals.get("present_with_signs", signals.get("present_cue"))
    return not (subkind in TIME_CRITICAL and signals.get("by") == "concept" and now)


def own_reading(p: dict[str, float], level: float | None) -> str | None:
    """Where the rules read no emergency: the likeliest kind of event when P(none) is at or
    below `level` (set out of fold so that no tuning near-miss and at most ESCALATE_BUDGET
    of the tuning ordinary questions gain an escalation: evaluation.emergency_model
    .escalate_level), else None. The service and the training share it."""
    if level is None or p["none"] > float(level):
        return None
    return max(KINDS, key=lambda k: p[k])


@lru_cache(maxsize=2)
def load_classifier(path: Path = MODEL_PATH) -> EmergencyClassifier | None:
    """The trained model, or None before the first training (the rules decide alone)."""
    if not path.exists():
        return None
    return EmergencyClassifier(json.loads(path.read_text(encoding="utf-8")))
