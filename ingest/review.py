"""Card text that a clinician should look at before patients read it: sentences that advise
changing a treatment on one's own (app.safety.advice, the same reading verification
applies to answers) or that address the assistant instead of the patient. Ingest logs them
as warnings; verification removes them from every answer anyway."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from app.agent.text import sentences
from app.safety.advice import read, unsafe_reasons
from app.safety.injection import looks_like_injection


@dataclass(frozen=True)
class Flag:
    card_id: str
    sentence: str
    reason: str

    def line(self, path: Path | None = None) -> str:
        where = f"{path}" if path else self.card_id
        return f"{where}: flagged for clinical review ({self.reason}): {self.sentence[:160]!r}"


def flags(cards: Iterable[object]) -> list[Flag]:
    """Every flagged sentence of these cards (objects with `id` and `text`)."""
    out = []
    for card in cards:
        card_id, text = str(getattr(card, "id")), str(getattr(card, "text"))  # noqa: B009
        for sentence in sentences(text):
            if looks_like_injection(sentence):
                out.append(Flag(card_id, sentence, "addressed to the assistant, not to a patient"))
                continue
            reasons = unsafe_reasons(read(sentence), quoted=True)
            if reasons:
                out.append(Flag(card_id, sentence, "; ".join(reasons)))
    return out
