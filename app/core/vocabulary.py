"""What a question names: covered medicines and conditions (kb/vocabulary.yaml) and common
ones the cards do not cover (kb/uncovered.yaml), recognised the way patients type them.

Names are matched on accent-folded text: multi-word names exactly; single words also
approximately (rapidfuzz, one or two edits depending on length), so "omeprasol",
"metiformina", "levotiroxin" and "losartan" are recognised. Short names ("aas", "t4") match
only exactly. A word of the Portuguese language is never read as a misspelt name: with 845
uncovered names, "dormência" came within two edits of "demência", "fritura" of "fratura",
"solução" of "soluço", and the question was refused as not covered. The list of words is
pyspellchecker's Portuguese frequency list (416,782 words from subtitles and Wikipedia),
not one of our own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from app.core.text import fold
from app.core.yamlfile import read_yaml

KB = Path(__file__).resolve().parents[2] / "kb"
_WORD = re.compile(r"\w+(?:-\w+)*", re.UNICODE)
# Common words that must never be read as a misspelt name.
_NEVER_FUZZY = frozenset(
    """
    pressa pressas presa preso tomar tomei tomando tomou posso pode podem devo deve tenho
    tinha estou estava muito muita pouco agora antes depois durante sempre nunca quando
    porque comer comida beber dormir acordar manha tarde noite semana meses anos dias horas
    minutos remedio remedios comprimido comprimidos medico medica consulta exame exames
    sangue cabeca barriga estomagos melhor piorou normal grave forte fraco tontura tonto
    insulino dormi dormia dorme durmo natural naturais chamo chama
    """.split()
)


@lru_cache(maxsize=1)
def portuguese_words() -> frozenset[str]:
    """Accent-folded Portuguese words of 5+ letters (the only ones matched approximately)."""
    from spellchecker import SpellChecker

    words = SpellChecker(language="pt", distance=1).word_frequency.dictionary
    return frozenset(fold(w) for w in words if len(w) >= 5)


@dataclass(frozen=True)
class Entry:
    name: str  # the word the cards use (covered) or the name itself (uncovered)
    kind: str  # "medicine", "condition" or "aspect" (uncovered only: "uso em animais")
    covered: bool
    aliases: tuple[str, ...]  # folded, name included
    label: str = ""  # the name with its article, for "Sobre a levotiroxina: ..."

    @property
    def display(self) -> str:
        if self.label:
            return self.label
        name = self.name
        if name.endswith("s"):
            return ("as " if name.endswith("as") else "os ") + name
        return ("a " if name.endswith(("a", "ão", "ade", "agem")) else "o ") + name


@dataclass(frozen=True)
class Mention:
    entry: Entry
    typed: str  # the words as the patient typed them (folded)
    start: int  # word offsets in the question
    end: int
    exact: bool
    span: tuple[int, int] = (0, 0)  # character offsets in the question


def _describes(before: str, word: str) -> bool:
    """An aspect's word that describes something else: "tosse de cachorro" (a barking cough),
    and "do cão" after a feeling, the intensifier ("uma insônia do cão", "um calor do cão")."""
    return before == "de" or (before == "do" and word == "cao")


def _tokens(text: str) -> list[tuple[str, int, int]]:
    """(folded word, start, end) of each word of `text`."""
    return [(fold(m.group()), m.start(), m.end()) for m in _WORD.finditer(text)]


def _load(path: Path, covered: bool) -> list[Entry]:
    raw = read_yaml(path) or {}
    entries = []
    for section, kind in (
        ("medicines", "medicine"),
        ("conditions", "condition"),
        ("aspects", "aspect"),
    ):
        for item in raw.get(section, []) or []:
            if isinstance(item, str):
                name, aliases, label = item, [], ""
            else:
                name, aliases = str(item["name"]), [str(a) for a in item.get("aliases", [])]
                label = str(item.get("label", ""))
            folded = tuple(dict.fromkeys(fold(a) for a in [name, *aliases]))
            entries.append(Entry(name, kind, covered, folded, label))
    return entries


class Vocabulary:
    def __init__(self, covered: list[Entry], uncovered: list[Entry]):
        self.entries = covered + uncovered
        self._phrases: dict[str, Entry] = {}
        self._single: dict[str, Entry] = {}
        for entry in self.entries:  # covered first: a name in both lists counts as covered
            for alias in entry.aliases:
                target = self._single if " " not in alias else self._phrases
                target.setdefault(alias, entry)
        # aspects are ordinary words ("gatinha" is one edit from "gotinha"): exact only
        self._fuzzy_choices = [
            a for a, e in self._single.items() if len(a) >= 5 and e.kind != "aspect"
        ]
        self._max_words = max((len(p.split()) for p in self._phrases), default=1)

    @classmethod
    def from_files(cls, covered: Path, uncovered: Path) -> Vocabulary:
        return cls(_load(covered, True), _load(uncovered, False))

    def covered_entries(self) -> list[Entry]:
        return [e for e in self.entries if e.covered]

    def find(self, text: str) -> list[Mention]:
        """Every name the text mentions, longest match first, without overlaps."""
        from rapidfuzz import fuzz, process

        tokens = _tokens(text)
        words = [t[0] for t in tokens]
        taken = [False] * len(words)
        found: list[Mention] = []
        for n in range(self._max_words, 1, -1):
            for i in range(len(words) - n + 1):
                if any(taken[i : i + n]):
                    continue
                phrase = " ".join(words[i : i + n])
                entry = self._phrases.get(phrase)
                if entry:
                    span = (tokens[i][1], tokens[i + n - 1][2])
                    found.append(Mention(entry, phrase, i, i + n, True, span))
                    taken[i : i + n] = [True] * n
        for i, word in enumerate(words):
            if taken[i]:
                continue
            entry = self._single.get(word)
            exact = entry is not None
            if (
                entry is None
                and len(word) >= 5
                and word not in _NEVER_FUZZY
                and word not in portuguese_words()
            ):
                cutoff = 80 if len(word) >= 8 else 85
                best = process.extractOne(
                    word, self._fuzzy_choices, scorer=fuzz.ratio, score_cutoff=cutoff
                )
                if best:
                    entry = self._single[best[0]]
            if entry and entry.kind == "aspect" and i and _describes(words[i - 1], word):
                entry = None  # describes something else: "tosse de cachorro" is a barking cough
            if entry:
                found.append(Mention(entry, word, i, i + 1, exact, tokens[i][1:]))
                taken[i] = True
        return sorted(found, key=lambda m: m.start)

    def normalise(self, text: str) -> str:
        """The text with misspelt or brand names replaced by the name the cards use (for
        retrieval: "omeprasol antes do cafe" -> "omeprazol antes do cafe")."""
        out: list[str] = []
        pos = 0
        for m in self.find(text):
            if not m.entry.covered or m.typed == fold(m.entry.name):
                continue
            start, end = m.span
            # A brand or everyday name keeps its words and gains the card's name; a
            # misspelling is replaced by it.
            out += [
                text[pos:start],
                f"{text[start:end]} ({m.entry.name})" if m.exact else m.entry.name,
            ]
            pos = end
        return "".join(out) + text[pos:]


@lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    return Vocabulary.from_files(KB / "vocabulary.yaml", KB / "uncovered.yaml")
