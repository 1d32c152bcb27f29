"""Concepts: each emergency as the signs that make it one (kb/safety/concepts.yaml), matched
over accent-folded text, with the few readings a pattern alone cannot make (a blood-pressure
reading, a dose many times the intended one). The cues (`C`) and signs (`S`) of kb/safety,
by name, for app.safety.emergency."""

from __future__ import annotations

import re
from functools import lru_cache
from types import SimpleNamespace

from app.safety.rules import rules

_R = rules()  # kb/safety/*.yaml, compiled once
C = SimpleNamespace(**_R.cues)  # the cues (cues.yaml), by name: C.INFORMATIONAL, C.PAST...
S = SimpleNamespace(**_R.signs)  # the signs (signs.yaml), by name, as pattern text


@lru_cache(maxsize=1)
def _compiled() -> list[tuple[str, str, re.Pattern[str]]]:
    # Every concept starts at a word: without it "acordei 2 vezes" read as "dei 2 vezes".
    return [(kind, sub, re.compile(r"(?<!\w)(?:" + p + ")")) for kind, sub, p in _R.concepts]


def _blood_pressure(folded: str) -> tuple[int, int] | None:
    """(systolic, diastolic) in mmHg from "22 por 14", "220x140", "pressão 19/12"."""
    m = re.search(S.BP, folded)
    if not m:
        return None
    sys_, dia = (int(g) for g in (m.group(1, 2) if m.group(1) else m.group(3, 4)))
    if sys_ < 30:  # "22 por 14" is how patients say 220 x 140
        sys_ *= 10
    if dia < 30:
        dia *= 10
    return sys_, dia


@lru_cache(maxsize=256)
def _matches(folded: str) -> tuple[tuple[str, str, int, int], ...]:
    """(kind, subkind, start, end) of every match of every concept: one pass of the patterns
    serves both the hits and their clauses."""
    return tuple(
        (kind, sub, *m.span()) for kind, sub, rx in _compiled() for m in rx.finditer(folded)
    )


def concept_spans(folded: str) -> list[tuple[int, int]]:
    """Where the concepts match (for the clause of a past-time cue)."""
    return [(start, end) for _, _, start, end in _matches(folded)]


def concept_hits(folded: str) -> list[tuple[str, str]]:
    """(kind, subkind) of every concept the folded text matches."""
    hits = list(dict.fromkeys((kind, sub) for kind, sub, _, _ in _matches(folded)))
    instead = C.INSTEAD.search(folded)
    if instead:
        taken, due = instead.group(1, 2) if instead.group(1) else instead.group(3, 4)
        if int(taken) >= 2 * int(due) > 0:
            hits.append(("poisoning", "poisoning"))
    bp = _blood_pressure(folded)
    pregnant = re.search(r"\b(?:gravida|gestante|gestacao|gravidez)\b", folded)
    if (
        bp
        and (bp[0] >= 170 or bp[1] >= 110 or (pregnant and (bp[0] >= 140 or bp[1] >= 90)))
        and re.search(
            S.BP_SYMPTOM + r"|luzinha\w*|pontos? (?:brilhantes|pretos)|estrelinhas|inchad\w*",
            folded,
        )
    ):
        hits.append(("medical", "hypertensive_crisis"))
    elif bp and (bp[0] >= 200 or bp[1] >= 130):
        hits.append(("medical", "hypertensive_crisis"))
    minor = bool(C.MINOR.search(folded)) and not C.SEVERE.search(folded)
    if ("medical", "dehydration") in hits and (
        minor
        or re.search(
            r"\b(?:comendo|bebendo|come|bebe|alimentando|urinando|fazendo xixi|hidratad[oa]|"
            r"dispost[oa])\b"
            r"(?:\W+\w+){0,3}?\W+(?:normal\w*|bem)\b"
            r"|\bdispost[oa]\b",
            folded,
        )
    ):
        hits = [h for h in hits if h != ("medical", "dehydration")]
    if (
        ("poisoning", "poisoning") in hits
        and C.TIMING_SLIP.search(folded)
        and not C.OVERDOSE_WORDS.search(folded)
        and not re.search(S.CHILD, folded)
    ):
        # a slip in how or when, not in how much: "tomei a levotiroxina com café sem querer"
        hits = [h for h in hits if h != ("poisoning", "poisoning")]
    if C.REMEASURED_NORMAL.search(folded):
        hits = [h for h in hits if h != ("medical", "hypoglycaemia")]
    if (
        C.DARKENS_STOOL.search(folded)
        and not re.search(S.ANTICOAG, folded)
        and not re.search(r"sangue|sangr\w*|vomit\w*|vermelh\w*|tont\w*|desmai\w*|fraqu\w*", folded)
    ):
        # iron and bismuth darken the stool: expected, not a bleed (on an anticoagulant it is)
        hits = [h for h in hits if h != ("medical", "bleeding")]
    if (
        re.search(S.ANTICOAG, folded)
        and re.search(
            r"sangr\w*|sangue|hematoma|manchas? roxas?|roxo|pret[oa]s?|escur[oa]s?", folded
        )
        and not minor
        and not (C.RESOLVED.search(folded) and not C.SEVERE.search(folded))
    ):
        if any(s == "bleeding" for _, s in hits) or re.search(
            r"sangr\w*\W+(?:\w+\W+){0,4}?(?:gengiva|nariz|urina|xixi|fezes|corte|ferida|machucado)|"
            r"(?:gengiva|nariz|corte|ferida|machucado)\W+(?:\w+\W+){0,3}?sangr\w*|encharc\w*|"
            r"(?:manchas? roxas?|hematomas?)\W+(?:\w+\W+){0,4}?(?:corpo|pernas|bracos|barriga)",
            folded,
        ):
            hits.append(("medical", "bleeding"))
    if re.search(S.CONFUSED, folded) and re.search(S.NEW_MED, folded):
        hits.append(("medical", "confusion"))
    return hits
