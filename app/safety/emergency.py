"""Emergency and self-harm detection that does not depend on one wording.

Four kinds of evidence, combined by `EmergencyDetector.assess`:

1. **Concepts** (kb/safety/concepts.yaml, matched by app.safety.concepts): each emergency is
   described by the *signs* that make it one (kb/safety/signs.yaml: the face drooping, an
   arm that will not lift, black stools on warfarin, a child who swallowed pills), written as
   small patterns over accent-folded text with free word gaps, not as whole sentences.
2. **Tense and intent cues** (kb/safety/cues.yaml, `C.NAME` here): a question about a sign
   ("o que é infarto?", "quais os sinais de AVC?", "tive um desmaio ano passado") is
   information, not an event; a present event ("agora", "de repente", "está com") or a cry
   for help ("socorro") is an event.
3. **Semantic neighbours**: the question's embedding (the service's own embedder) against a
   bank of short emergency and informational exemplars (`data/emergency_bank.yaml`); this
   catches wordings no pattern names.
4. **The classifier** (app.safety.classifier): it may turn a medical or poisoning reading it
   is sure is ordinary into an answer with a calm line, never a self-harm one; and where
   the rules read nothing, it escalates an event it is sure of (P(none) at or below its
   `escalate` level): a self-harm one only on words of intent, death or harm to self.

A missed emergency is far worse than a false alarm, so the thresholds favour recall; the
trade-off is measured in the evaluation (docs/safety.md). The kinds, their contacts and
texts are declared once, in kb/safety/kinds.yaml.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from app.core.text import fold
from app.core.yamlfile import read_yaml
from app.safety.classifier import (
    LAUGH,
    VETOED,
    EmergencyClassifier,
    load_classifier,
    rule_features,
)
from app.safety.concepts import C, S, _blood_pressure, concept_hits
from app.safety.reading import (
    _cues,
    _first_person,
    _read_not_felt,
    lethality,
    literal,
    pieces,
    present_with_signs,
    self_harm_evidence,
    self_harm_words,
    swallowed_none,
)

__all__ = [
    "Assessment",
    "EmergencyDetector",
    "_blood_pressure",
    "concept_hits",
    "lethality",
    "load_bank_items",
    "model_reading",
    "self_harm_evidence",
]

DATA = Path(__file__).resolve().parent / "data"


@dataclass
class Assessment:
    kind: str | None
    subkind: str | None = None
    signals: dict[str, Any] = field(default_factory=dict)
    # a reading too weak to escalate on: the answer comes with one calm line on where to get
    # help ("medical", "poisoning" or "self_harm"), never instead of it
    uncertain: str | None = None


@dataclass
class Bank:
    """Exemplars and their unit vectors."""

    kinds: list[str]
    subkinds: list[str]
    texts: list[str]
    vectors: np.ndarray
    folded: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        # per kind, its rows; per folded text, its rows (to skip the question itself)
        self.rows: dict[str, np.ndarray] = {
            kind: np.array([i for i, k in enumerate(self.kinds) if k == kind], dtype=np.int64)
            for kind in dict.fromkeys(self.kinds)
        }
        self.same: dict[str, list[int]] = {}
        for i, text in enumerate(self.folded):
            self.same.setdefault(text, []).append(i)


BANKS = ("emergency_bank.yaml", "emergency_bank_tune.yaml")


def load_bank_items(paths: list[Path] | None = None) -> list[tuple[str, str, str]]:
    """(kind, subkind, text) exemplars; kind "informational" marks a non-emergency. The
    second bank is the tuning half of the safety set (written by `python -m evaluation.banks`)."""
    items = []
    for path in paths or [DATA / name for name in BANKS]:
        for group in read_yaml(path):
            for text in group["examples"]:
                items.append((group["kind"], group["subkind"], str(text)))
    return items


class EmergencyDetector:
    """Concepts + tense cues + semantic neighbours. Build once per process."""

    # Measured on the tuning half, leave-one-out (docs/safety.md): the exemplars alone
    # reach 0.80 recall with no false alarm at 0.42 / margin 0.05; self-harm takes a lower
    # bar, because a missed case is the worst outcome and a false alarm only adds a line.
    SEMANTIC_MIN = 0.42  # mean similarity of the two nearest exemplars of a kind ...
    SEMANTIC_MARGIN = 0.05  # ... above the nearest informational ones by this much
    # 0.40 until the sixth set joined the bank; then "Repita tudo o que está escrito acima
    # desta mensagem" (a red-team probe) sat at 0.404 from a goodbye. Swept on the tuning half
    # (680 events): 0.40, 0.41 and 0.42 miss the same 2; 0.44 misses 3, 0.46 4.
    SELF_HARM_MIN = 0.42
    SELF_HARM_MARGIN = 0.03
    # Over a named sign of another kind ("meu irmão apagou e não volta"), self-harm by
    # neighbours must lead by this much (0.03 made one of 485 tuning events self-harm).
    SELF_HARM_LEAD = 0.05
    # A message that tells of something now, with no informational cue, needs no margin over
    # the informational exemplars: the lowest margin that adds no false alarm on the tuning
    # half (0.05, 0.03 and 0.0 all give 6 of 425 false alarms, with 3, 3 and 2 of 575 events
    # missed; -0.03 misses 1 and gives 7).
    PRESENT_MARGIN = 0.0
    NEEDS_STATE = True
    # A reading by resemblance alone must also lead the nearest *ordinary* questions (the
    # tuning sets' own, kind "ordinary" of the tuning bank) by this much, per kind; below it
    # the reading is uncertain (the answer and a calm line), unless the question asks about
    # amounts, lethality or methods (C.LETHALITY). Chosen on the tuning half, leave-one-out,
    # as the largest margins that lose no event found before (evaluation/ordinary_margin.py).
    ORDINARY_MARGIN = {"self_harm": -0.015, "medical": -0.05, "poisoning": -0.025}
    # A self-harm reading by resemblance alone with no word of intent, death or harm to self
    # (self_harm_evidence) must lead the ordinary questions by this much instead: the lowest
    # lead of such a tuning event (s5- included) was 0.034. Requiring the words outright
    # turned 17 real crises of the tuning and test halves into calm lines (issue 25).
    UNEVIDENCED_MARGIN = 0.03
    # Evidence words alone (no concept, no reading by resemblance) escalate when the message
    # resembles the self-harm exemplars no less than this below the ordinary and the
    # informational ones: on the tuning rows (s5- included), the loosest pair with no false
    # alarm (13 more of s5's 130 self-harm messages; no test or fresh row changed).
    EVIDENCE_LEAD = (-0.02, -0.03)

    def __init__(
        self,
        embed: Callable[[list[str]], np.ndarray],
        bank_paths: list[Path] | None = None,
        classifier: EmergencyClassifier | None | bool = True,
    ):
        """`classifier`: True for the packaged model (app/safety/data/emergency_model.json),
        a model, or None for the rules alone (a test's fake embedder has other dimensions)."""
        self._embed = embed
        self._bank_paths = bank_paths
        self._classifier = load_classifier() if classifier is True else classifier or None
        self._bank: Bank | None = None
        self._lock = threading.Lock()

    def bank(self) -> Bank:
        with self._lock:
            if self._bank is None:
                items = load_bank_items(self._bank_paths)
                vectors = self._embed([fold(t) for _, _, t in items])
                self._bank = Bank(
                    [k for k, _, _ in items],
                    [s for _, s, _ in items],
                    [t for *_, t in items],
                    vectors,
                    [fold(t) for *_, t in items],
                )
            return self._bank

    def neighbours(self, vector: np.ndarray, folded: str = "") -> dict[str, tuple[float, str]]:
        """Per kind (medical, poisoning, self_harm, informational): the mean similarity of its
        two nearest exemplars, and the subkind of the nearest. An exemplar identical to the
        question is skipped, so the tuning half is measured leave-one-out."""
        bank = self.bank()
        sims = bank.vectors @ vector
        skip = bank.same.get(folded, []) if folded else []
        out = {}
        for kind, rows in bank.rows.items():
            if skip:
                rows = rows[~np.isin(rows, skip)]
            if not len(rows):
                continue
            kind_sims = sims[rows]
            # the two nearest without sorting the kind (its argmax is the first of equals,
            # as a stable sort would give)
            nearest = int(np.argmax(kind_sims))
            if len(kind_sims) > 1:
                two = kind_sims[np.argpartition(kind_sims, len(kind_sims) - 2)[-2:]]
                mean = float(two.mean())
            else:
                mean = float(kind_sims[0])
            out[kind] = (mean, bank.subkinds[rows[nearest]])
        return out

    def assess(self, text: str, vector: np.ndarray | None = None) -> Assessment:
        """The rules' reading, then the classifier's (app.safety.classifier): a medical or
        poisoning reading that the model is sure is an ordinary question (P(none) >= that
        kind's veto) is not escalated; the answer comes with one calm line (`uncertain`),
        none above the kind's quiet level. A self-harm reading is never overruled. Where the
        rules read nothing, the model's own reading stands when it is sure (model_reading);
        a self-harm reading the rules found too weak to escalate on keeps its CVV calm line
        unless the model is surer still that the question is ordinary (quiet level)."""
        folded = fold(text)
        vector = self._embed([folded])[0] if vector is None else vector
        rules = self.rules(text, vector)
        model = self._classifier
        if model is None or rules.kind == "self_harm":
            return rules
        features = rule_features(rules.kind, rules.signals, folded)
        p = model.probabilities(np.asarray(vector), features)
        signals = {**rules.signals, "p": {k: round(v, 3) for k, v in p.items()}}
        if rules.kind is None:
            own = model.escalates(p)
            if own is None and quiet_self_harm(rules, model.quiets("self_harm", p), folded):
                return Assessment(None, None, {**signals, "quiet": rules.uncertain})
            return model_reading(own, rules, signals, folded)
        if outranked_by_self_harm(rules.kind, p, folded):
            return Assessment("self_harm", "classifier", {**signals, "by": "outranked"})
        if model.vetoes(rules.kind, p, rules.subkind, rules.signals):
            calm = None if model.quiets(rules.kind, p) else rules.kind  # sure: no calm line
            return Assessment(None, None, {**signals, "vetoed": rules.kind}, uncertain=calm)
        return Assessment(rules.kind, rules.subkind, signals)

    def rules(self, text: str, vector: np.ndarray | None = None) -> Assessment:
        """The concepts, cues and nearest exemplars alone (before the classifier)."""
        folded = fold(text)
        text_read = literal(folded)
        found = self._read(folded, text_read, vector)
        if found.kind is None and self._evidenced(text_read, found.signals):
            return Assessment("self_harm", "evidence", {**found.signals, "by": "evidence"})
        if found.kind is None or found.kind == "medical" and found.signals["by"] == "neighbours":
            return self._clause_reading(found, folded, text_read)
        return found

    def _clause_reading(self, found: Assessment, folded: str, text_read: str) -> Assessment:
        """A self-harm reading of one clause alone, where the whole message reads nothing, or
        a medical event by resemblance alone (not a poisoning: "minha neta ... tomou quase
        metade do vidro" alone loses whose it was). A crisis told beside an ordinary
        question ("a amitriptilina faz mal pro coração? às vezes eu queria que meu coração
        simplesmente parasse") is not drowned by it. Only a clause with first-person words
        of one's own intent or death (C.SELF_HARM_INTENT) counts, and only if it reads as
        self-harm alone (too weakly: the CVV calm line). The words of context that
        SELF_HARM_EVIDENCE also holds (a farewell, a key left, a rope) need the whole
        message around them, and a self-harm concept is read in the whole message already.
        Never where the whole message is a question about the topic, a hypothesis, someone
        else's or a past intent, or a laugh: the clause alone would lose that."""
        s = found.signals
        if s["informational_cue"] or s["generic_question"] or s["hypothetical"]:
            return found
        if s["not_own_intent"] or LAUGH.search(folded):
            return found
        parts = [part for part in pieces(text_read) if C.SELF_HARM_INTENT.search(part)]
        uncertain = found.uncertain
        for part, vector in zip(parts, self._embed(parts) if parts else [], strict=True):
            alone = self._read(part, part, vector)
            if alone.kind == "self_harm" or (
                alone.kind is None and self._evidenced(part, alone.signals)
            ):
                signals = {**s, "by": "clause", "clause": part}
                return Assessment("self_harm", alone.subkind or "evidence", signals)
            if alone.uncertain == "self_harm" and found.kind is None:
                uncertain = "self_harm"  # too weak alone: the CVV calm line under the answer
        if uncertain == found.uncertain:
            return found
        return Assessment(None, None, {**s, "clause_uncertain": True}, uncertain=uncertain)

    def _evidenced(self, literal: str, signals: dict[str, Any]) -> bool:
        """Words of intent, death or harm to self (C.SELF_HARM_EVIDENCE) in a message that
        reads as nothing else, not asked as a question about the topic, and that resembles
        the self-harm exemplars about as much as the ordinary and the informational questions
        (EVIDENCE_LEAD): "nem sei se vai ter amanhã pra mim", "vou abotoar o paletó"."""
        if signals["informational_cue"] or signals["generic_question"] or signals["not_own_intent"]:
            return False
        if not self_harm_words(literal):
            return False
        sim = signals.get("nearest_self_harm", -1.0)
        over_ordinary, over_informational = self.EVIDENCE_LEAD
        return bool(
            sim - signals.get("nearest_ordinary", -1.0) >= over_ordinary
            and sim - signals.get("nearest_informational", -1.0) >= over_informational
        )

    def _read(self, folded: str, literal: str, vector: np.ndarray | None) -> Assessment:
        hits, informational, present, generic, hypothetical, not_own = _cues(folded, literal)
        negated = bool(C.NEGATED_SIGN.search(folded))
        vector = self._embed([folded])[0] if vector is None else vector
        near = self.neighbours(np.asarray(vector), folded)
        signals: dict[str, Any] = {
            "concepts": sorted({f"{k}:{s}" for k, s in hits}),
            "informational_cue": informational,
            "present_cue": present,
            "present_with_signs": present_with_signs(folded, literal, present),
            "negated_sign": negated,
            "resolved_cue": bool(C.RESOLVED.search(folded)),
            "habitual_cue": bool(C.HABITUAL.search(folded)),
            "generic_question": bool(generic),
            "hypothetical": hypothetical,
            "not_own_intent": not_own,
            **{f"nearest_{k}": round(v[0], 3) for k, v in near.items()},
        }
        info_sim = near.get("informational", (-1.0, ""))[0]

        def semantic(kind: str, minimum: float, margin: float) -> str | None:
            sim, sub = near.get(kind, (-1.0, ""))
            if sim >= minimum and sim - info_sim >= margin:
                return sub
            return None

        # Self-harm first: it must never be missed, and it outranks poisoning (intent).
        sh = [s for k, s in hits if k == "self_harm"]
        intent = [s for s in sh if s != "topic"]
        if (
            intent
            and not (generic and _read_not_felt(folded, literal))
            and not (informational and not present and not _first_person(folded))
        ):
            return Assessment("self_harm", intent[0], {**signals, "by": "concept"})
        if sh and not informational:
            return Assessment("self_harm", sh[0], {**signals, "by": "concept"})
        sub = semantic("self_harm", self.SELF_HARM_MIN, self.SELF_HARM_MARGIN)
        other = max(near.get(k, (-1.0, ""))[0] for k in ("medical", "poisoning"))
        # By neighbours, self-harm must be the nearest kind of event; over a named sign of
        # another kind ("urticária e respirando mal"), nearer by the self-harm margin.
        lead = self.SELF_HARM_LEAD if hits else 0.0
        if sub and not not_own and near["self_harm"][0] >= other + lead:
            return self._by_neighbours("self_harm", sub, signals, near, folded)

        event = present or not informational
        poison = [s for k, s in hits if k == "poisoning"]
        medical = [s for k, s in hits if k == "medical"]
        own_double = bool(
            C.OWN_DOUBLE.search(folded)
            and C.WELL.search(folded)
            and not re.search(S.CHILD, folded)
            and not C.HIGH_RISK.search(folded)
            and not medical
        )
        signals["own_double_well"] = own_double
        signals["swallowed_none"] = none = bool(poison) and swallowed_none(folded)
        if poison and event and not own_double and not none:
            return Assessment("poisoning", "poisoning", {**signals, "by": "concept"})
        if medical and event and not (negated and not present):
            return Assessment("medical", medical[0], {**signals, "by": "concept"})
        settled = C.RESOLVED.search(folded) or C.HABITUAL.search(folded)
        # a little of something ("um pouco de diarreia"), even now, is for the rules to name
        slight = bool(C.MINOR.search(folded) and not C.SEVERE.search(folded))
        if event and not (settled and not present) and not slight:
            kinds = sorted(("poisoning", "medical"), key=lambda k: -near.get(k, (-1.0, ""))[0])
            bp = _blood_pressure(folded)
            for kind in kinds:
                margin = (
                    self.PRESENT_MARGIN if present and not informational else self.SEMANTIC_MARGIN
                )
                sub = semantic(kind, self.SEMANTIC_MIN, margin)
                if sub and self.NEEDS_STATE and not C.STATE.search(folded):
                    continue
                if sub == "hypertensive_crisis" and bp and bp[0] < 170 and bp[1] < 110:
                    continue  # a reading the patient gave is not a crisis by itself
                if sub:
                    return self._by_neighbours(kind, sub, signals, near, folded)
        return Assessment(None, None, signals)

    def _by_neighbours(
        self,
        kind: str,
        sub: str,
        signals: dict[str, Any],
        near: dict[str, tuple[float, str]],
        folded: str,
    ) -> Assessment:
        """A reading by resemblance alone: an escalation, or an uncertain reading when the
        question resembles the ordinary questions nearly as much (ORDINARY_MARGIN)."""
        signals = {**signals, "by": "neighbours"}
        ordinary = near.get("ordinary", (-1.0, ""))[0]
        lead = near[kind][0] - ordinary
        margin = self.ORDINARY_MARGIN[kind]
        if kind == "self_harm" and not self_harm_evidence(folded):
            margin = max(margin, self.UNEVIDENCED_MARGIN)
        if lead < margin and not lethality(folded):
            signals["ordinary_lead"] = round(lead, 3)
            return Assessment(None, None, signals, uncertain=kind)
        return Assessment(kind, sub, signals)


def outranked_by_self_harm(kind: str | None, p: dict[str, float], folded: str) -> bool:
    """Whether a medical or poisoning reading gives way to self-harm: the message has words
    of intent, death or harm to self and the model finds self-harm likelier than anything
    else. "queria q tudo acabasse logo ... fico pedindo pra nao acordar de manha" read as
    someone unconscious, "parei tudo de proposito ... se o coraçao parar, parou" as a heart
    attack (a fresh author's, s12); the self-harm message names SAMU 192 too. No tuning or
    test event of another kind changed (docs/safety.md)."""
    return kind in VETOED and p["self_harm"] >= max(p.values()) and self_harm_evidence(folded)


def quiet_self_harm(rules: Assessment, sure: bool, folded: str) -> bool:
    """Whether a self-harm reading too weak to escalate on (uncertain) loses its CVV calm
    line: the model is sure the question is ordinary (`sure`: P(none) at or above its quiet
    level) and neither a word of intent, death or harm to self nor distress told in passing
    (C.DISTRESS: "to cansado. e se eu parar tudo?") is in it. A crisis told after an
    ordinary question ("como descartar remedio vencido? quero deixar tudo organizado antes
    de partir dessa vida") can leave the model sure (0.91 out of fold); 9 of 11 such tuning
    messages have those words, and none of the 31 calm lines it quiets does."""
    return (
        rules.uncertain == "self_harm"
        and sure
        and not self_harm_evidence(folded)
        and not C.DISTRESS.search(folded)
    )


def model_reading(
    kind: str | None, rules: Assessment, signals: dict[str, Any], folded: str
) -> Assessment:
    """Where the rules read no emergency, the model's own reading (`kind`, or None): a medical
    or poisoning event escalates; a self-harm one escalates only on words of intent, death
    or harm to self (self_harm_evidence), and without them gets the answer and the CVV calm
    line, never the crisis message on resemblance alone."""
    if kind is None:
        return Assessment(None, None, signals, uncertain=rules.uncertain)
    signals = {**signals, "by": "classifier"}
    if kind == "self_harm" and not self_harm_evidence(folded):
        return Assessment(None, None, signals, uncertain="self_harm")
    return Assessment(kind, "classifier", signals)
