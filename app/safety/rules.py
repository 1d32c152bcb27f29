"""The emergency rules as data (issue 25): kb/safety/*.yaml, read and compiled once.

- `signs.yaml`: named alternations over accent-folded text ("CHILD", "SWALLOW", "PILLS").
- `concepts.yaml`: each emergency as the signs that make it one (kind, subkind, pattern).
- `cues.yaml`: the tense, intent and framing cues (`INFORMATIONAL`, `PAST`, `PRESENT`...).
- `kinds.yaml`: each emergency kind once: its label, contacts, escalation and calm line.

A pattern is a string or a list; a list is an alternation, `(?:a|b|c)`, and a list inside
it one more. `{NAME}` stands for an entry of signs.yaml, expanded before compiling. A name
that is not defined, or a pattern that does not compile, fails at load with the file and
the entry it is in (`RulesError`), so a broken cue never reaches a running service.

Why not a library: the patterns are Portuguese regular expressions with free word gaps;
what is needed is named fragments and one compile per pattern, which Python's `re` does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, get_args

import yaml

from app.core.yamlfile import read_yaml

RULES_DIR = Path(__file__).resolve().parents[2] / "kb" / "safety"
_NAME = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")
KIND_FIELDS = ("label", "contacts", "escalation", "calm_line")
# The kinds of kinds.yaml, for the API's and the evaluation's types (a static type cannot be
# read from a file; tests/unit/safety/test_rules.py checks that the two agree).
KindName = Literal["medical", "poisoning", "self_harm"]
KIND_NAMES: tuple[str, ...] = get_args(KindName)


class RulesError(ValueError):
    """A rules file that cannot be used: names the file, the entry and the problem."""


@dataclass(frozen=True)
class Kind:
    name: str
    label: str  # what the patient reads in "Detectei um(a) ..." texts
    contacts: tuple[tuple[str, str], ...]  # (who, number)
    escalation: str  # shown first when the reading escalates
    calm_line: str  # one line under the answer when the reading is too weak to escalate


@dataclass(frozen=True)
class Rules:
    signs: dict[str, str]  # name -> expanded pattern text
    concepts: tuple[tuple[str, str, str], ...]  # (kind, subkind, expanded pattern text)
    cues: dict[str, re.Pattern[str]]
    kinds: dict[str, Kind]

    def cue(self, name: str) -> re.Pattern[str]:
        return self.cues[name]


def _join(value: Any, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value:
        return "(?:" + "|".join(_join(v, where) for v in value) + ")"
    raise RulesError(f"{where}: a pattern is a string or a non-empty list, got {value!r}")


def _expand(text: str, signs: dict[str, str], where: str) -> str:
    def sub(m: re.Match[str]) -> str:
        if m[1] not in signs:
            raise RulesError(
                f"{where}: {{{m[1]}}} is not an entry of signs.yaml (defined above it)"
            )
        return signs[m[1]]

    return _NAME.sub(sub, text)


def _compile(text: str, where: str) -> re.Pattern[str]:
    try:
        return re.compile(text)
    except re.error as e:
        raise RulesError(f"{where}: the pattern does not compile: {e}") from e


def _read(path: Path) -> Any:
    try:
        return read_yaml(path)
    except (OSError, yaml.YAMLError) as e:
        raise RulesError(f"{path}: cannot be read: {e}") from e


def load_rules(directory: Path = RULES_DIR) -> Rules:
    signs: dict[str, str] = {}
    for name, value in (_read(directory / "signs.yaml") or {}).items():
        where = f"signs.yaml {name}"
        signs[name] = _expand(_join(value, where), signs, where)
        _compile(signs[name], where)
    concepts = []
    for i, item in enumerate(_read(directory / "concepts.yaml") or []):
        where = f"concepts.yaml entry {i + 1} ({item.get('kind')}/{item.get('subkind')})"
        if set(item) != {"kind", "subkind", "pattern"}:
            raise RulesError(f"{where}: needs exactly kind, subkind and pattern")
        text = _expand(_join(item["pattern"], where), signs, where)
        _compile(text, where)
        concepts.append((str(item["kind"]), str(item["subkind"]), text))
    cues = {}
    for name, value in (_read(directory / "cues.yaml") or {}).items():
        where = f"cues.yaml {name}"
        cues[name] = _compile(_expand(_join(value, where), signs, where), where)
    kinds = {}
    for name, item in (_read(directory / "kinds.yaml") or {}).items():
        if not isinstance(item, dict) or set(item) != set(KIND_FIELDS):
            raise RulesError(f"kinds.yaml {name}: needs exactly {', '.join(KIND_FIELDS)}")
        contacts = tuple((str(c["name"]), str(c["number"])) for c in item["contacts"])
        kinds[name] = Kind(name, item["label"], contacts, item["escalation"], item["calm_line"])
    unknown = sorted({k for k, _, _ in concepts} - set(kinds))
    if unknown:
        raise RulesError(f"concepts.yaml: kinds {unknown} are not declared in kinds.yaml")
    return Rules(signs, tuple(concepts), cues, kinds)


@lru_cache(maxsize=1)
def rules() -> Rules:
    """The service's rules, compiled once per process."""
    return load_rules()
