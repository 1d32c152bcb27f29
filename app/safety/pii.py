"""Personal data in patients' questions, found with Presidio and removed before anything
else sees the question (retrieval, generation, logs, storage).

Presidio (Microsoft's analyzer + anonymizer) supplies the engine: recognizer registry,
overlap resolution, scores, validation hooks, and the anonymizer that cuts the spans out.
It ships no Brazilian recognizers and no Portuguese NER model can be installed here, so the
pt-BR recognizers are ours, built on its classes:

- CPF and CNS (cartão do SUS): formats plus check digits (validate-docbr), RG, CEP, e-mail,
  full dates (birth dates), Brazilian phone numbers (Presidio's PhoneRecognizer, which uses
  Google's libphonenumber, plus local numbers without area code), street addresses, and any
  run of 8 or more digits (no medical quantity in a question is that long);
- person names, without NER: names introduced by "sou", "me chamo", "meu nome é", "aqui é",
  names next to kinship words ("minha mãe, a Maria das Graças") or honorifics ("dona
  Cida", "seu José"), and capitalised first names from a list of common Brazilian names.

The NLP engine is a blank spaCy Portuguese pipeline (tokenizer only), created in memory.
"""

from __future__ import annotations

import bisect
import logging
import re
import threading
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from app.core.text import fold
from app.core.yamlfile import read_yaml

log = logging.getLogger(__name__)

DATA = Path(__file__).resolve().parent / "data"
LANGUAGE = "pt"
SCORE_THRESHOLD = 0.4

_TAG = re.compile(r"<[^>]{0,500}>")
# What a question that was nothing but personal data becomes (never the original text).
EMPTY_QUESTION = "pergunta sem conteúdo"

NAMES_FILE = Path(__file__).resolve().parents[2] / "kb" / "safety" / "names.yaml"
_NAME_WORDS = (
    "strong_introducers",
    "weak_introducers",
    "kin",
    "honorifics",
    "connectors",
    "not_name",
)


def _name_words(path: Path = NAMES_FILE) -> dict[str, tuple[str, ...]]:
    """The words around a name (kb/safety/names.yaml): each entry a list of words or
    phrases, or one string of words. A missing entry or one that is not a list of strings fails at load, naming the
    file and the entry."""
    data = read_yaml(path) or {}
    out = {}
    for key in _NAME_WORDS:
        words = data.get(key)
        words = words.split() if isinstance(words, str) else words
        if not isinstance(words, list) or not words or not all(isinstance(w, str) for w in words):
            raise ValueError(f"{path.name} {key}: needs a list of words")
        out[key] = tuple(w.strip() for w in words)
    return out


_W = _name_words()
_KINSHIP = re.compile(
    rf"\b(?:(?:a|o|da|do|na|no|pra|pro|para|com|que)\s+)?(?:minha|meu|minhas|meus|nossa|nosso)"
    rf"\s+(?:{'|'.join(_W['kin'])})\b"
)
_HONORIFIC = re.compile(rf"\b(?:{'|'.join(_W['honorifics'])})\b\.?")
_CONNECTORS = set(_W["connectors"])
_NOT_NAME = set(_W["not_name"])
_STRONG_INTRODUCERS = _W["strong_introducers"]
_WEAK_INTRODUCERS = _W["weak_introducers"]
_STRONG_RE = re.compile(rf"\b(?:{'|'.join(_STRONG_INTRODUCERS)})\b\s*(?:(?:o|a|dona|seu)\s+)?")
_WEAK_RE = re.compile(rf"(?:^|\s)(?:{'|'.join(_WEAK_INTRODUCERS)})\s+(?:(?:o|a)\s+)?")
_WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ']+")


@lru_cache(maxsize=1)
def first_names() -> tuple[frozenset[str], frozenset[str]]:
    """(names, ambiguous names) from data/first_names.txt, folded."""
    names: set[str] = set()
    ambiguous: set[str] = set()
    target = names
    for line in (DATA / "first_names.txt").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line == "[ambiguous]":
            target = ambiguous
            continue
        target.add(fold(line))
    return frozenset(names - ambiguous), frozenset(ambiguous)


def _words(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(), m.start(), m.end()) for m in _WORD.finditer(text)]


def _is_capitalised(word: str) -> bool:
    return word[:1].isupper() and not word.isupper() or (len(word) > 1 and word.istitle())


def _name_run(
    words: list[tuple[str, int, int]],
    i: int,
    strong: bool,
    allow_ambiguous: bool,
    text: str = "",
) -> tuple[int, int] | None:
    """The span of a name starting at words[i], or None when words[i] is not a name."""
    names, ambiguous = first_names()
    if i >= len(words):
        return None
    first, start, end = words[i]
    f = fold(first)
    capital = _is_capitalised(first)
    if f in _NOT_NAME or f in _CONNECTORS:
        return None
    known = f in names or (f in ambiguous and (capital or allow_ambiguous))
    if not (known or capital or strong):
        return None
    j = i + 1
    taken = 1
    while j < len(words) and taken < 6:
        word, _, w_end = words[j]
        fw = fold(word)
        between = text[words[j - 1][2] : words[j][1]] if text else " "
        if between.strip():  # punctuation between words ends the name
            break
        if fw in _CONNECTORS and fw != "e" and j + 1 < len(words):
            nxt = words[j + 1][0]
            if (
                _is_capitalised(nxt)
                or fold(nxt) in names
                or (strong and fold(nxt) not in _NOT_NAME)
            ):
                j += 1
                continue
            break
        if _is_capitalised(word) and fw not in _NOT_NAME:
            end = w_end
        elif fw in names and fw not in _NOT_NAME:
            end = w_end
        elif strong and fw not in _NOT_NAME and fw not in _CONNECTORS and taken < 4:
            end = w_end
        else:
            break
        taken += 1
        j += 1
    return start, end


def find_names(text: str) -> Iterator[tuple[int, int]]:
    """Spans of person names (see the module docstring for the rules)."""
    words = _words(text)
    folded = [fold(w) for w, _, _ in words]
    joined = " ".join(folded)
    # Map each folded word index to its character position in `joined`.
    offsets = []
    pos = 0
    for f in folded:
        offsets.append(pos)
        pos += len(f) + 1

    def index_at(char: int) -> int:
        return bisect.bisect_left(offsets, char)

    seen: set[tuple[int, int]] = set()

    def emit(span: tuple[int, int] | None) -> Iterator[tuple[int, int]]:
        if span and span not in seen:
            seen.add(span)
            yield span

    for m in _STRONG_RE.finditer(joined):
        yield from emit(_name_run(words, index_at(m.end()), True, True, text=text))
    for m in _WEAK_RE.finditer(joined):
        yield from emit(_name_run(words, index_at(m.end()), False, True, text=text))
    for m in _KINSHIP.finditer(joined):
        k = index_at(m.end())
        # "minha mãe, a Maria" / "meu filho Pedro" / "minha vó dona Cida"
        while k < len(words) and folded[k] in ("a", "o", "dona", "seu", "tia", "tio"):
            k += 1
        yield from emit(_name_run(words, k, False, False, text=text))
    for m in _HONORIFIC.finditer(joined):
        k = index_at(m.end())
        if k < len(words):
            word = words[k][0]
            names, _ = first_names()
            if _is_capitalised(word) or fold(word) in names:
                yield from emit(_name_run(words, k, False, True, text=text))
    names, ambiguous = first_names()
    for k, (word, _, _) in enumerate(words):
        f = folded[k]
        mid_sentence = k > 0 and not re.search(r"[.!?\n]\s*$", text[: words[k][1]])
        if _is_capitalised(word) and (f in names or (f in ambiguous and mid_sentence)):
            yield from emit(_name_run(words, k, False, mid_sentence, text=text))


def _pattern(name: str, regex: str, score: float) -> Any:
    from presidio_analyzer import Pattern

    return Pattern(name, regex, score)


def _recognizer(entity: str, *patterns: Any) -> Any:
    from presidio_analyzer import PatternRecognizer

    return PatternRecognizer(entity, patterns=list(patterns), supported_language=LANGUAGE)


def _check_digit_recognizer(entity: str, patterns: list[Any], validator: Any) -> Any:
    """A pattern whose score rises to 1.0 when the check digits are valid."""
    from presidio_analyzer import PatternRecognizer

    class CheckDigitRecognizer(PatternRecognizer):
        def validate_result(self, pattern_text: str) -> bool | None:
            return True if validator.validate(re.sub(r"\D", "", pattern_text)) else None

    return CheckDigitRecognizer(entity, patterns=patterns, supported_language=LANGUAGE)


def _name_recognizer() -> Any:
    from presidio_analyzer import EntityRecognizer, RecognizerResult

    class NameRecognizer(EntityRecognizer):
        def load(self) -> None:
            first_names()

        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list[Any]:
            return [RecognizerResult("PERSON", start, end, 0.85) for start, end in find_names(text)]

    return NameRecognizer(
        supported_entities=["PERSON"], supported_language=LANGUAGE, name="pt-names"
    )


RECOGNIZERS_FILE = NAMES_FILE.parent / "personal_data.yaml"


def _recognizers(path: Path = RECOGNIZERS_FILE) -> list[Any]:
    """The recognizers of kb/safety/personal_data.yaml, in its order: pattern recognizers
    (with check digits for CPF and CNS), Presidio's phone recognizer and ours for names. An
    entry it cannot build fails at start, naming the file and the entity."""
    from presidio_analyzer.predefined_recognizers import PhoneRecognizer
    from validate_docbr import CNS, CPF

    validators = {"CPF": CPF(), "CNS": CNS()}
    builtin = {
        "PhoneRecognizer": lambda: PhoneRecognizer(
            supported_language=LANGUAGE,
            supported_regions=("BR",),
            context=["telefone", "celular", "whatsapp", "zap", "contato", "fone"],
        ),
        "NameRecognizer": _name_recognizer,
    }
    out = []
    for entry in read_yaml(path):
        entity = entry.get("entity")
        try:
            if "builtin" in entry:
                out.append(builtin[entry["builtin"]]())
                continue
            patterns = [
                _pattern(p["name"], p["regex"], float(p["score"])) for p in entry["patterns"]
            ]
            if entry.get("check_digits"):
                out.append(_check_digit_recognizer(entity, patterns, validators[entity]))
            else:
                out.append(_recognizer(entity, *patterns))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(
                f"{path.name} {entity}: cannot build its recognizer ({exc!r})"
            ) from exc
    return out


class _BlankPortuguese:
    """Presidio's spaCy NLP engine over a blank Portuguese pipeline (no model download)."""

    @staticmethod
    def create() -> Any:
        from presidio_analyzer.nlp_engine import SpacyNlpEngine

        class Engine(SpacyNlpEngine):
            def load(self) -> None:
                import spacy

                self.nlp = {LANGUAGE: spacy.blank(LANGUAGE)}  # type: ignore[assignment]

        return Engine(models=[{"lang_code": LANGUAGE, "model_name": "blank-pt"}])


class PersonalDataStripper:
    """Finds personal data and cuts it out of a question. Thread-safe; build once."""

    def __init__(self) -> None:
        from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
        from presidio_anonymizer import AnonymizerEngine

        registry = RecognizerRegistry(supported_languages=[LANGUAGE])
        for rec in _recognizers():
            registry.add_recognizer(rec)
        self._analyzer = AnalyzerEngine(
            registry=registry,
            nlp_engine=_BlankPortuguese.create(),
            supported_languages=[LANGUAGE],
            default_score_threshold=SCORE_THRESHOLD,
        )
        self._anonymizer = AnonymizerEngine()  # type: ignore[no-untyped-call]

    def find(self, text: str) -> list[Any]:
        return list(self._analyzer.analyze(text=text, language=LANGUAGE))

    def strip(self, text: str) -> tuple[str, list[str]]:
        """(text without personal data, entity types removed)."""
        from presidio_anonymizer.entities import OperatorConfig

        results = self.find(text)
        if not results:
            return text, []
        out = self._anonymizer.anonymize(
            text=text,
            analyzer_results=results,
            operators={"DEFAULT": OperatorConfig("replace", {"new_value": " "})},
        )
        return out.text, sorted({r.entity_type for r in results})


_instance: PersonalDataStripper | None = None
_lock = threading.Lock()


def get_stripper() -> PersonalDataStripper:
    global _instance
    with _lock:
        if _instance is None:
            logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
            _instance = PersonalDataStripper()
        return _instance


_DANGLING = re.compile(
    r"(?i)\b(?:(?:e|eu)\s+)?(?:sou|me chamo|meu nome (?:é|e)|aqui (?:é|e)|aqui quem fala (?:é|e))"
    r"(?:\s+(?:o|a|dona|seu))?\s*(?=[,.;:!?]|$)"
    r"|\b(?:e\s+)?(?:o\s+)?(?:meu|minha|o|a)\s+(?:cpf|rg|telefone|celular|whats(?:app)?|zap|e-?mail|cep|"
    r"endereço|endereco|cartão do sus|cartao do sus|cns|nascimento|data de nascimento)?"
    r"(?:\s+(?:é|e))?\s*(?=[,.;:!?]|$)"
)


def _tidy(text: str) -> str:
    text = " ".join(text.split())
    for _ in range(2):
        text = _DANGLING.sub("", text)
        text = " ".join(text.split())
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    text = re.sub(r"[,;:](?:\s*[,;:])+", ",", text)  # ", ," left by a removed item
    text = re.sub(r"[,;:]\s*([.!?])", r"\1", text)  # ", ." left at a sentence end
    text = re.sub(r"^[\s,;:.\-]+", "", text)
    return text.strip(" ,;:")


def clean_question(question: str) -> str:
    """The question as retrieval, generation, logs and storage see it: markup removed (it
    means nothing in a patient's question and only dilutes the match) and personal data
    removed (not needed to answer, and never sent to a model)."""
    text = _TAG.sub(" ", question)
    stripped, _ = get_stripper().strip(text)
    tidy = _tidy(stripped)
    return tidy if any(ch.isalnum() for ch in tidy) else EMPTY_QUESTION
