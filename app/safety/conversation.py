"""An emergency reading in a conversation: what the earlier turns change about this one.

A message is read on its own by `EmergencyDetector.assess`. In a conversation three things
change that reading:

- **A crisis told earlier stays.** A patient who wrote "to pensando em tomar todos os meus
  remedios de uma vez e acabar com isso" got the CVV message; their next message, "minha
  irmã tá vindo pra cá agora. é melhor ela ficar com meus remédios guardados?", read alone,
  got the antidepressant card's "Nunca pare de repente". An earlier message of the
  conversation that reads as self-harm by its words (a concept or words of intent, not
  resemblance alone) escalates every later turn that reads no emergency of its own.
- **A poisoning told just before stays for the next message.** "socorro meu filho de 3 anos
  pegou a cartela de paracetamol e comeu nao sei quantos" got the poisoning message; the
  parent's next message, "mas ele parece bem, brincando normal, precisa ir mesmo?", read
  alone, got the paracetamol card's line on alcohol, and "Tem algum número de centro de
  intoxicação pra eu ligar agora?" got nothing to call. A swallowed overdose is called in
  whatever the symptoms (card-030, card-025), so the message right after one that reads as a
  poisoning by its concept (a child's, or an amount beyond a double dose), when it reads
  nothing of its own (no emergency, no uncertain reading, no words of a crisis) and does not
  tell that care was given ("já fomos no hospital"), gets the poisoning message again above
  its answer. One turn only; a medical emergency's follow-ups ("levo ela de carro pro
  hospital?") are answered from the cards, which say to call the SAMU.
- **A follow-up on a medicine is read with the message before it.** "Então vou parar amanhã
  mesmo." after a question on Rivotril resembles the self-harm exemplars ("vou acabar com
  tudo amanhã") and got the crisis message instead of the answer on stopping clonazepam. A
  self-harm reading by resemblance alone, without words of intent, death or harm to self,
  in a turn that carries a medicine is read again after the message before it; when that
  reads no emergency, the answer is given with the calm CVV line (never without it).

The earlier messages come from the client (the API's `history`), so they are read again
here, never trusted as a flag.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from app.core.text import fold
from app.core.vocabulary import Entry
from app.safety.concepts import C, concept_hits
from app.safety.emergency import Assessment, EmergencyDetector, self_harm_evidence
from app.safety.pii import clean_question
from app.safety.reading import literal

# A reading "by" these rests on the message's words, not on resemblance alone.
BY_WORDS = ("concept", "evidence")


def worded(folded: str) -> bool:
    """Whether a message may read as self-harm by its words: a self-harm concept or words of
    intent, death or harm to self. Only such a message can tell a crisis (`crisis_told`)."""
    return self_harm_evidence(folded) or any(
        k == "self_harm" for k, _ in concept_hits(literal(folded))
    )


def earlier_texts(history: Sequence[Mapping[str, Any]]) -> tuple[list[str], str]:
    """The earlier messages as the detector reads them (personal data out, accent-folded):
    those that may tell a crisis in words, to be embedded and read, and the one just before
    this turn. Most follow-ups have none to read, so they embed nothing more."""
    texts = [fold(clean_question(str(turn["question"]))) for turn in history]
    return [t for t in texts if worded(t)], texts[-1] if texts else ""


def assess_turn(
    detector: EmergencyDetector,
    question: str,
    query: str,
    vector: np.ndarray,
    carried: list[Entry],
    earlier: Sequence[tuple[str, np.ndarray]],
    before: str = "",
) -> Assessment:
    """This message's reading (`question` as typed, `query` with personal data out, `vector`
    its folded embedding), given the earlier messages that may tell a crisis, as (text,
    vector) pairs, and the message just before it (both from `earlier_texts`)."""
    readings = [detector.rules(text, v) for text, v in earlier]
    own = detector.assess(question, vector)
    return in_conversation(detector, own, query, carried, readings, before)


def crisis_told(earlier: Sequence[Assessment]) -> bool:
    """Whether an earlier message read as self-harm by its words."""
    return any(a.kind == "self_harm" and a.signals.get("by") in BY_WORDS for a in earlier)


def poisoning_told(detector: EmergencyDetector, before: str) -> bool:
    """Whether the message just before (folded, personal data out) reads as a poisoning by
    its concept, the classifier's veto included ("to tomando errado?" is not one), of a
    child or of an amount beyond a double dose (C.CALLED_IN: one's own pill taken twice is
    not called in whatever happens). Read (and embedded) only when its words match, so most
    follow-ups embed nothing more."""
    if not before or not C.CALLED_IN.search(before):
        return False
    if not any(k == "poisoning" for k, _ in concept_hits(literal(before))):
        return False
    reading = detector.assess(before)
    return reading.kind == "poisoning" and reading.signals.get("by") == "concept"


def in_conversation(
    detector: EmergencyDetector,
    assessment: Assessment,
    question: str,
    carried: list[Entry],
    earlier: Sequence[Assessment],
    before: str = "",
) -> Assessment:
    """This turn's reading given the conversation: `earlier` are the rules' readings of the
    earlier messages (oldest first), `before` the message just before this one, `carried`
    the names this follow-up carries."""
    if assessment.kind is None and crisis_told(earlier):
        return Assessment(
            "self_harm",
            "conversation",
            {**assessment.signals, "by": "conversation"},
        )
    if (
        assessment.kind is None
        and assessment.uncertain is None
        and not worded(fold(question))
        and not C.CARE_GIVEN.search(fold(question))
        and poisoning_told(detector, before)
    ):
        signals = {**assessment.signals, "by": "conversation", "told_before": "poisoning"}
        return Assessment("poisoning", "poisoning", signals)
    medicine = next((e for e in carried if e.kind == "medicine"), None)
    if (
        medicine is None
        or assessment.kind != "self_harm"
        or assessment.signals.get("by") != "neighbours"
        or self_harm_evidence(fold(question))
    ):
        return assessment
    # the message before it names the medicine, or leads to the one that does: "a
    # sinvastatina tá me dando dor nas pernas. então amanhã eu paro de vez" (the entry's
    # name alone, "estatinas: então amanhã eu paro de vez", still resembled the crisis)
    in_context = f"{before} {fold(question)}".strip()
    again = detector.rules(in_context)  # embedded here: a rare case, not every turn
    if again.kind is not None:
        return assessment
    signals = {**assessment.signals, "by": "conversation", "read_with": medicine.name}
    return Assessment(None, None, signals, uncertain="self_harm")
