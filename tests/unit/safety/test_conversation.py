"""An emergency reading in a conversation (app.safety.conversation): a crisis told earlier
stays, and a follow-up on a medicine is read after the message before it, before it is
escalated on resemblance alone. The detector's rules are stood in for, so each case names
its reading."""

from __future__ import annotations

from typing import Any, cast

from app.core.vocabulary import Entry, vocabulary
from app.safety.conversation import crisis_told, earlier_texts, in_conversation
from app.safety.emergency import Assessment, EmergencyDetector


class Rules:
    """The detector's `rules`, returning a fixed reading and recording what it read."""

    def __init__(self, reading: Assessment):
        self.reading = reading
        self.read: list[str] = []

    def rules(self, text: str, vector: Any = None) -> Assessment:
        self.read.append(text)
        return self.reading

    assess = rules  # the message before is read with the classifier's veto


def medicine(name: str) -> Entry:
    return next(m.entry for m in vocabulary().find(name) if m.entry.kind == "medicine")


def by(kind: str | None, how: str | None) -> Assessment:
    return Assessment(kind, "explicit" if kind else None, {"by": how} if how else {})


NONE = by(None, None)
WORDED = by("self_harm", "concept")
RESEMBLED = by("self_harm", "neighbours")


BEFORE = "a sinvastatina ta me dando dor nas pernas"


def read(
    assessment: Assessment,
    question: str = "e agora?",
    carried: list[Entry] | None = None,
    earlier: list[Assessment] | None = None,
    again: Assessment = NONE,
) -> tuple[Assessment, Rules]:
    rules = Rules(again)
    detector = cast(EmergencyDetector, rules)
    got = in_conversation(detector, assessment, question, carried or [], earlier or [], BEFORE)
    return got, rules


def test_a_crisis_told_in_words_escalates_the_later_turns() -> None:
    got, _ = read(NONE, earlier=[NONE, WORDED])
    assert (got.kind, got.subkind, got.signals["by"]) == (
        "self_harm",
        "conversation",
        "conversation",
    )
    assert crisis_told([by("self_harm", "evidence")])


def test_a_crisis_read_by_resemblance_alone_does_not_carry() -> None:
    assert not crisis_told([RESEMBLED, by("medical", "concept")])
    got, _ = read(NONE, earlier=[RESEMBLED])
    assert got.kind is None


def test_a_turns_own_emergency_stands_after_a_crisis() -> None:
    poisoning = by("poisoning", "concept")
    got, _ = read(poisoning, earlier=[WORDED])
    assert got is poisoning


def test_stopping_the_carried_medicine_gets_the_calm_line() -> None:
    statin = medicine("sinvastatina")
    got, rules = read(RESEMBLED, "então amanhã eu paro de vez", [statin])
    assert got.kind is None and got.uncertain == "self_harm"
    assert got.signals["read_with"] == statin.name
    # read after the message before it, accent-folded as the detector reads
    assert rules.read == [f"{BEFORE} entao amanha eu paro de vez"]


def test_the_resemblance_stands_when_the_medicine_does_not_explain_it() -> None:
    got, _ = read(
        RESEMBLED, "então amanhã eu paro de vez", [medicine("sinvastatina")], again=WORDED
    )
    assert got is RESEMBLED


def test_words_of_intent_are_never_read_again() -> None:
    got, rules = read(RESEMBLED, "vou parar de tomar e quero morrer", [medicine("sinvastatina")])
    assert got is RESEMBLED and rules.read == []


def test_without_a_carried_medicine_the_reading_stands() -> None:
    got, rules = read(RESEMBLED, "então amanhã eu paro de vez", [])
    assert got is RESEMBLED and rules.read == []
    worded, rules = read(WORDED, "chega, hoje é o último dia", [medicine("enalapril")])
    assert worded is WORDED and rules.read == []


def test_only_messages_with_words_of_a_crisis_are_read_again() -> None:
    """Reading an earlier message costs an embedding; one that cannot read as self-harm by
    its words (no self-harm concept, no words of intent) could never tell a crisis."""
    history = [
        {"question": "onde guardo a insulina?", "citations": []},
        {"question": "não quero mais viver, pensei em tomar a cartela inteira", "citations": []},
        {"question": "e se eu esquecer uma dose?", "citations": []},
    ]
    read, before = earlier_texts(history)
    assert read == ["nao quero mais viver, pensei em tomar a cartela inteira"]
    assert before == "e se eu esquecer uma dose?"
    assert earlier_texts([]) == ([], "")


POISONED = by("poisoning", "concept")


def test_a_poisoning_told_just_before_stays_for_the_next_message() -> None:
    before = "socorro meu filho engoliu uns comprimidos da avo agora"
    rules = Rules(POISONED)
    detector = cast(EmergencyDetector, rules)
    got = in_conversation(detector, NONE, "mas ele ta bem, preciso levar mesmo?", [], [], before)
    assert (got.kind, got.subkind, got.signals["by"]) == ("poisoning", "poisoning", "conversation")
    assert rules.read == [before]
    # read only when a poisoning concept matches the words before: nothing else is embedded
    plain = Rules(POISONED)
    kept = in_conversation(
        cast(EmergencyDetector, plain), NONE, "e com leite?", [], [], "tomo levotiroxina"
    )
    assert kept.kind is None and plain.read == []
    # nor when the message before names a poisoning the rules do not read as one now
    settled = Rules(NONE)
    calm = in_conversation(cast(EmergencyDetector, settled), NONE, "e agora?", [], [], before)
    assert calm.kind is None and settled.read == [before]
    # nor after one's own pill taken twice (not called in whatever happens)
    own = Rules(POISONED)
    twice = "tomei o anticoncepcional duas vezes hoje"
    assert (
        in_conversation(cast(EmergencyDetector, own), NONE, "e amanhã?", [], [], twice).kind is None
    )
    assert own.read == []
    # nor when the follow-up tells that care was given, or reads anything of its own
    seen = "ja levamos no hospital e o medico liberou, pode dar dipirona?"
    assert in_conversation(detector, NONE, seen, [], [], before).kind is None
    uncertain = Assessment(None, None, {"by": "neighbours"}, uncertain="self_harm")
    assert in_conversation(detector, uncertain, "e se eu parar tudo?", [], [], before).kind is None
    worded = "nem sei pra que continuar vivendo"
    assert in_conversation(detector, NONE, worded, [], [], before).kind is None
    # a reading of its own stands
    medical = by("medical", "concept")
    own = in_conversation(detector, medical, "ele desmaiou", [], [], before)
    assert own.kind == "medical"
