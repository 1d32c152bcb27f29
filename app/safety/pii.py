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

log = logging.getLogger(__name__)

DATA = Path(__file__).resolve().parent / "data"
LANGUAGE = "pt"
SCORE_THRESHOLD = 0.4

_TAG = re.compile(r"<[^>]{0,500}>")
# What a question that was nothing but personal data becomes (never the original text).
EMPTY_QUESTION = "pergunta sem conteúdo"

# Words that start a name ("sou" is weak: "sou diabética" is not a name).
_STRONG_INTRODUCERS = (
    "me chamo",
    "meu nome e",
    "o meu nome e",
    "meu nome",
    "aqui e",
    "aqui quem fala e",
    "quem fala e",
    "quem escreve e",
    "nome do paciente",
    "nome da paciente",
    "paciente",
    "nome",
)
_WEAK_INTRODUCERS = ("sou", "eu sou", "sou o", "sou a")
_KIN = (
    "mae|pai|filho|filha|filhos|filhas|esposa|esposo|marido|mulher|avo|vo|vovo|irma|irmao|"
    "tia|tio|sogra|sogro|neto|neta|nora|genro|cunhada|cunhado|prima|primo|madrasta|padrasto|"
    "enteada|enteado|afilhada|afilhado|vizinha|vizinho|patroa|patrao|sobrinha|sobrinho|"
    "companheira|companheiro|namorada|namorado|bisavo|madrinha|padrinho|amiga|amigo|"
    "cuidadora|cuidador|paciente|crianca|bebe|menina|menino|caçula|cacula"
)
_KINSHIP = re.compile(
    rf"\b(?:(?:a|o|da|do|na|no|pra|pro|para|com|que)\s+)?(?:minha|meu|minhas|meus|nossa|nosso)"
    rf"\s+(?:{_KIN})\b"
)
_HONORIFIC = re.compile(r"\b(?:dona|seu|sr|sra|senhor|senhora|dr|dra|doutor|doutora|tia|tio)\b\.?")
_CONNECTORS = {"da", "de", "do", "das", "dos", "e"}
# Words that end a name run after a strong introducer (function words, common verbs).
_NOT_NAME = set(
    """
    a o as os um uma e eu ele ela eles elas que de da do das dos em na no nas nos por pra pro
    para com sem se mas ou ja tambem so nao sim aqui ai la isso isto esse essa este esta meu
    minha seu sua tenho tem tive ter estou esta estava to ta tava sou era foi fui vou vai
    tomo toma tomei tomando uso usa usei usando faco fiz sinto senti queria quero preciso
    gostaria moro trabalho posso pode devo deve sei acho anos ano idade mae pai filho filha
    marido esposa remedio remedios dor pressao diabetes diabetica diabetico hipertensa
    hipertenso gestante gravida idosa idoso cuidadora cuidador paciente enfermeira tecnica
    doutor doutora medico medica farmaceutica farmaceutico responsavel aposentada aposentado
    alergica alergico cardiaco cardiaca bom boa dia tarde noite ola oi obrigado obrigada
    """.split()
)
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


_LABEL = r"(?:{}\s*(?:n[º°o.]*\s*)?[:=\-]?\s*(?:[ée]\s+)?)?"


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


def _document_recognizers() -> list[Any]:
    """CPF and CNS (check digits), RG."""
    from validate_docbr import CNS, CPF

    pattern, recognizer = _pattern, _recognizer
    CheckDigitRecognizer = _check_digit_recognizer  # noqa: N806 - reads like the class it builds
    cpf_label = _LABEL.format(r"\bcpf")
    cns_label = _LABEL.format(r"\b(?:cns|cart[aã]o (?:do )?sus|cart[aã]o nacional de sa[uú]de|sus)")
    return [
        CheckDigitRecognizer(
            "CPF",
            [
                pattern(
                    "cpf formatted", rf"{cpf_label}\b\d{{3}}\.\d{{3}}\.\d{{3}}[-.]\d{{2}}\b", 0.7
                ),
                pattern(
                    "cpf labelled",
                    r"\bcpf\s*(?:n[º°o.]*\s*)?[:=\-]?\s*(?:[ée]\s+)?\d[\d.\s-]{9,16}\d",
                    0.8,
                ),
                pattern("cpf digits", r"\b\d{11}\b", 0.3),
            ],
            CPF(),
        ),
        CheckDigitRecognizer(
            "CNS",
            [
                pattern(
                    "cns labelled",
                    rf"{cns_label}\b\d{{3}}[\s.]?\d{{4}}[\s.]?\d{{4}}[\s.]?\d{{4}}\b",
                    0.6,
                ),
                pattern("cns digits", r"\b[1-2789]\d{2}\s?\d{4}\s?\d{4}\s?\d{4}\b", 0.3),
            ],
            CNS(),
        ),
        recognizer(
            "RG",
            pattern(
                "rg labelled",
                r"\b(?:rg|r\.g\.|identidade|carteira de identidade)\s*(?:n[º°o.]*\s*)?[:=\-]?\s*"
                r"(?:[ée]\s+)?(?:[a-z]{2}[-\s]?)?\d[\d.\s-]{4,13}[\dxX]\b",
                0.8,
            ),
            pattern("rg formatted", r"\b\d{1,2}\.\d{3}\.\d{3}-[\dxX]\b", 0.6),
        ),
    ]


def _contact_recognizers() -> list[Any]:
    """Birth dates, e-mail, phones, CEP."""
    from presidio_analyzer.predefined_recognizers import PhoneRecognizer

    pattern, recognizer = _pattern, _recognizer
    return [
        recognizer(
            "DATE_OF_BIRTH",
            pattern(
                "numeric date",
                r"\b(?:(?:nasci(?:d[oa])?|nascimento|data de nascimento|dn|d\.n\.)\s*"
                r"(?:em|no dia|dia)?\s*[:=\-]?\s*)?(?:0?[1-9]|[12]\d|3[01])[/.\-](?:0?[1-9]|1[0-2])"
                r"[/.\-](?:\d{4}|\d{2})\b",
                0.6,
            ),
            pattern(
                "written date",
                r"\b(?:(?:nasci(?:d[oa])?|nascimento)\s*(?:em|no dia|dia)?\s*)?(?:0?[1-9]|[12]\d|3[01])"
                r"\s+de\s+(?:janeiro|fevereiro|mar[cç]o|abril|maio|junho|julho|agosto|setembro|"
                r"outubro|novembro|dezembro)(?:\s+de)?\s+\d{4}\b",
                0.6,
            ),
            pattern("birth year", r"\bnasci(?:d[oa])?\s+em\s+(?:19|20)\d{2}\b", 0.6),
        ),
        recognizer(
            "EMAIL_ADDRESS",
            pattern(
                "email",
                r"(?:\be-?mail\s*[:=]?\s*(?:[ée]\s+)?)?\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b",
                0.9,
            ),
        ),
        PhoneRecognizer(
            supported_language=LANGUAGE,
            supported_regions=("BR",),
            context=["telefone", "celular", "whatsapp", "zap", "contato", "fone"],
        ),
        recognizer(
            "PHONE_NUMBER",
            pattern(
                "phone labelled",
                r"\b(?:tel|telefone|cel|celular|whats|whatsapp|zap|wpp|fone|contato)\b\.?\s*"
                r"(?:[ée]\s+)?[:=\-]?\s*(?:\+?55\s?)?(?:\(?\d{2}\)?\s?)?9?\s?\d{4}[-\s.]?\d{4}\b",
                0.8,
            ),
            pattern(
                "phone",
                r"(?:\+?55\s?)?\(?\b\d{2}\)?\s?9\s?\d{4}[-\s.]?\d{4}\b|\b9\d{4}-\d{4}\b",
                0.6,
            ),
        ),
        recognizer(
            "CEP",
            pattern("cep labelled", r"\bcep\s*[:=\-]?\s*(?:[ée]\s+)?\d{2}\.?\d{3}-?\d{3}\b", 0.9),
            pattern("cep", r"\b\d{5}-\d{3}\b", 0.6),
        ),
    ]


def _place_recognizers() -> list[Any]:
    """Street addresses, "moro em ...", record numbers and long digit runs."""
    pattern, recognizer = _pattern, _recognizer
    return [
        recognizer(
            "ADDRESS",
            pattern(
                "street",
                r"\b(?:rua|r\.|av\.|avenida|travessa|tv\.|alameda|al\.|pra[cç]a|p[cç]a\.|estrada|"
                r"rodovia|largo|beco|viela|conjunto|quadra|qd\.)\s+[^,.;!?\n]{2,60}?"
                r"(?:,?\s*(?:n[º°o.]*\s*)?\d{1,5}[a-z]?\b)"
                r"(?:,?\s*(?:ap(?:to|artamento)?\.?|casa|bloco|bl\.|sala|lote|lt\.|fundos|"
                r"quadra|qd\.)\s*\w{1,6}\b)*",
                0.8,
            ),
            pattern(
                "street without number",
                r"\b(?:moro|resido|mora|moramos|residente)\s+(?:na|no|em|numa|num)\s+(?:rua|avenida|"
                r"av\.|travessa|alameda|pra[cç]a|estrada|vila|bairro|comunidade|condom[ií]nio)"
                r"\s+[^,.;!?\n]{2,60}",
                0.8,
            ),
            pattern(
                "lives in",
                r"\b(?:moro|resido|moramos)\s+(?:na|no|em|numa|num)\s+[^.;!?\n]{2,80}?"
                r"(?=[.;!?\n,]|\s+e\s+(?:tomo|uso|tenho|sou|estou)\b|$)",
                0.6,
            ),
            pattern("neighbourhood", r"\bbairro\s+[^,.;!?\n]{2,40}", 0.6),
            pattern(
                "named neighbourhood",
                # (?-i: ...): capitalised names only (Presidio matches case-insensitively)
                r"(?-i:\b(?:Jardim|Jd\.|Vila|Parque|Conjunto|Residencial|Condom[ií]nio|Loteamento|Setor|"
                r"Chácara|Chacara|Sítio|Sitio|Fazenda|Núcleo|Nucleo)\s+[A-ZÀ-Ý][\wÀ-ÿ]+(?:\s+(?:d[aeo]s?\s+)?"
                r"[A-ZÀ-Ý][\wÀ-ÿ]+){0,3})",
                0.6,
            ),
            pattern(
                "city and state",
                r"(?-i:\b[A-ZÀ-Ý][\wÀ-ÿ]+(?:\s+(?:d[aeo]s?\s+)?[A-ZÀ-Ý][\wÀ-ÿ]+){0,3}\s*[-/,]\s*(?:AC|AL|AP|AM|BA|CE|"
                r"DF|ES|GO|MA|MT|MS|MG|PA|PB|PR|PE|PI|RJ|RN|RS|RO|RR|SC|SP|SE|TO)\b)",
                0.7,
            ),
        ),
        recognizer(
            "ID_NUMBER",
            pattern("long digit run", r"\b\d(?:[\s.\-/]?\d){7,}\b", 0.5),
            pattern(
                "record number",
                r"\b(?:prontu[aá]rio|matr[ií]cula|registro|protocolo|carteirinha|conv[eê]nio|"
                r"plano|n[uú]mero do cart[aã]o|leito|senha)\s*(?:n[º°o.]*\s*)?[:=\-]?\s*(?:[ée]\s+)?"
                r"[a-z]{0,3}\d[\d.\-/]{3,}\b",
                0.7,
            ),
        ),
    ]


def _recognizers() -> list[Any]:
    return [
        *_document_recognizers(),
        *_contact_recognizers(),
        *_place_recognizers(),
        _name_recognizer(),
    ]


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
        self._anonymizer = AnonymizerEngine()

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
