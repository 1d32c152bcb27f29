"""What each card sentence is about, as data (kb/sentences.yaml), and sentence ids.

A sentence id is `{card id}:{NN}`: the card's NN-th sentence (1-based) as
app.agent.text.sentences splits the card's text. The labels were written by an annotator
who saw only the cards: the kinds of question a sentence answers (`intents`), the sentence
it cannot be read without (`needs`) and whether it informs at all. A label is used only
while its text still matches the card's sentence: an edited card loses the labels of the
sentences it changed (never a wrong label), and the scorer falls back to what it can
compute (`standalone` by the pronoun a sentence opens with).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from app.agent.text import sentences
from app.core.yamlfile import read_yaml

LABELS_PATH = Path(__file__).resolve().parents[2] / "kb" / "sentences.yaml"

INTENTS = (
    "horario",
    "alimento",
    "alcool",
    "dose_esquecida",
    "mudar_dose",
    "parar",
    "efeito_colateral",
    "sinais_alerta",
    "emergencia",
    "interacao",
    "exames",
    "para_que_serve",
    "tecnica",
    "armazenamento",
    "descarte",
    "adesao",
    "viagem",
    "gravidez",
    "acesso",
    "estilo_vida",
    "onde_buscar_ajuda",
    "idosos",
    "criancas",
)

# Sentence openers that refer to something said before them (the fallback for a sentence
# with no label).
ANAPHORIC = re.compile(
    r"^(?:ess[ea]s?|ist[oa]|iss[oa]|est[ea]s?|el[ea]s?|nesses?|nessas?|neste|nesta|nisso|desses?|dessas?|"
    r"tamb[eé]m|al[eé]m disso|por isso|mesmo assim|assim|nesse caso|nesses casos)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class SentenceLabel:
    id: str
    text: str
    intents: tuple[str, ...]
    needs: str | None
    informative: bool


def sentence_id(card_id: str, n: int) -> str:
    return f"{card_id}:{n:02d}"


def card_of(sentence: str) -> str:
    return sentence.rsplit(":", 1)[0]


def numbered(text: str) -> list[tuple[int, int, str]]:
    """(n, paragraph, sentence) of a card's text, n counted from 1 over the whole card."""
    out = []
    n = 0
    for para, paragraph in enumerate(re.split(r"\n\s*\n", text.strip())):
        for sentence in sentences(paragraph):
            n += 1
            out.append((n, para, sentence))
    return out


def _norm(text: str) -> str:
    return " ".join(text.split())


class SentenceLabels:
    def __init__(self, labels: list[SentenceLabel]):
        self._by_id = {label.id: label for label in labels}

    @classmethod
    def load(cls, path: Path = LABELS_PATH) -> SentenceLabels:
        raw = read_yaml(path) or []
        labels = []
        for entry in raw:
            unknown = set(entry.get("intents", [])) - set(INTENTS)
            if unknown:
                raise ValueError(f"{path}: {entry['id']}: unknown intents {sorted(unknown)}")
            labels.append(
                SentenceLabel(
                    id=entry["id"],
                    text=_norm(entry["text"]),
                    intents=tuple(entry.get("intents", [])),
                    needs=entry.get("needs"),
                    informative=bool(entry.get("informative", True)),
                )
            )
        return cls(labels)

    def get(self, sid: str, text: str) -> SentenceLabel | None:
        """The label of sentence `sid`, if it was written for this very text."""
        label = self._by_id.get(sid)
        return label if label is not None and label.text == _norm(text) else None

    def drift(self, cards: dict[str, str]) -> list[str]:
        """Ids whose label no longer matches its card's sentence (cards: id -> text)."""
        current = {
            sentence_id(card, n): _norm(s)
            for card, text in cards.items()
            for n, _, s in numbered(text)
        }
        return sorted(
            sid
            for sid, label in self._by_id.items()
            if card_of(sid) in cards and current.get(sid) != label.text
        )


@lru_cache(maxsize=1)
def sentence_labels() -> SentenceLabels:
    return SentenceLabels.load()
