"""Patient words for the cards' words (kb/thesaurus.yaml), as stems.

`expand(text)` gives, for each content word of the text, the word's stem plus the stems of
the cards' words it stands for ("tonta" -> {"tont", "tontur"}); a patient phrase of several
words ("pegar o carro") is matched on its stems, in order and side by side ("pego o carro"
matches too), and adds one group of its card words. Used by the sentence scorer's lexical overlap.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from app.core.text import tokenize
from app.core.yamlfile import read_yaml

THESAURUS_PATH = Path(__file__).resolve().parents[2] / "kb" / "thesaurus.yaml"


@dataclass(frozen=True)
class Thesaurus:
    words: dict[str, frozenset[str]]  # a patient word's stem -> card stems
    phrases: tuple[tuple[tuple[str, ...], frozenset[str]], ...]  # phrase stems -> card stems

    @classmethod
    def load(cls, path: Path = THESAURUS_PATH) -> Thesaurus:
        raw = read_yaml(path) or []
        words: dict[str, set[str]] = {}
        phrases: list[tuple[tuple[str, ...], frozenset[str]]] = []
        for n, entry in enumerate(raw, start=1):
            if not entry.get("patient") or not entry.get("cards"):
                raise ValueError(f"{path}: entry {n} needs `patient` and `cards`")
            cards = frozenset(t for c in entry["cards"] for t in tokenize(str(c)))
            for form in entry["patient"]:
                stems = tokenize(str(form))
                if len(stems) == 1:
                    words.setdefault(stems[0], set()).update(cards - {stems[0]})
                elif stems:
                    phrases.append((tuple(stems), cards))
        return cls({k: frozenset(v) for k, v in words.items()}, tuple(phrases))

    def groups(self, text: str, terms: list[str] | None = None) -> list[frozenset[str]]:
        """One group of stems per content word of `text` (or per word of `terms`): the word
        and the card words it stands for; then one group per patient phrase found."""
        stems = tokenize(text)
        terms = stems if terms is None else terms
        out = [frozenset({t}) | self.words.get(t, frozenset()) for t in terms]
        for phrase, cards in self.phrases:
            n = len(phrase)
            if any(tuple(stems[i : i + n]) == phrase for i in range(len(stems) - n + 1)):
                out.append(cards)
        return out


@lru_cache(maxsize=1)
def thesaurus() -> Thesaurus:
    return Thesaurus.load()
