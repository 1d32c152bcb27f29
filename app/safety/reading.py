"""How a message is told (issue 25): the tense, framing and intent cues of kb/safety/cues.yaml
read over the concepts a message names (app.safety.concepts), for the emergency detector
(app.safety.emergency): whether its signs are told now, in the past, as a question about
the topic or a hypothesis; whether self-harm words are the writer's intent now; questions
about amounts, lethality or methods."""

from __future__ import annotations

import re

from app.safety.concepts import C, _compiled, _matches, concept_hits, concept_spans


def _clauses(folded: str) -> list[tuple[int, int]]:
    """(start, end) of each clause: split at punctuation and "mas"."""
    bounds = [0, *(m.end() for m in C.CLAUSE.finditer(folded)), len(folded) + 1]
    return list(zip(bounds, bounds[1:], strict=False))


def pieces(folded: str, fewest: int = 4) -> list[str]:
    """The clauses of a message of several, each of at least `fewest` words, for a crisis told
    beside an ordinary question ("posso tomar rivotril com cerveja? to num buraco e nao vejo
    como sair"): read alone, the clause is not drowned by the question around it. Empty for a
    message of one clause."""
    clauses = [folded[lo:hi].strip(" ,.;!?") for lo, hi in _clauses(folded)]
    kept = [c for c in clauses if len(c.split()) >= fewest]
    return kept if len([c for c in clauses if c]) > 1 else []


def _past_covers_signs(
    folded: str, spans: list[tuple[int, int]], cue: re.Pattern[str] = C.PAST
) -> bool:
    """Whether a past-time cue is about the signs: every sign sits in a clause with a past cue,
    or in one told in the simple past."""
    cues = [m.start() for m in cue.finditer(folded)]
    if not cues:
        return False
    clauses = _clauses(folded)

    def clause(pos: int) -> tuple[int, int]:
        return next(((lo, hi) for lo, hi in clauses if lo <= pos < hi), clauses[-1])

    past_clauses = {clause(c) for c in cues}
    for start, _ in spans:
        lo, hi = clause(start)
        if (lo, hi) not in past_clauses and not C.SIMPLE_PAST.search(folded[lo:hi]):
            return False
    return True


_PASSING = ("unconscious", "hypoglycaemia", "dehydration")


def _present_with_signs(folded: str, spans: list[tuple[int, int]]) -> bool:
    """Whether a present-time cue sits in a clause with a sign ("começou semana passada e hoje
    tá totalmente confuso")."""
    clauses = _clauses(folded)
    with_signs = {(lo, hi) for lo, hi in clauses for a, _ in spans if lo <= a < hi}
    unwell = C.WELL_TODAY.sub(lambda m: " " * len(m.group(0)), folded)
    return any(lo <= m.start() < hi for m in C.PRESENT.finditer(unwell) for lo, hi in with_signs)


def _habit(folded: str, hits: list[tuple[str, str]], spans: list[tuple[int, int]]) -> bool:
    """Every sign in a "quando / sempre que" clause: a habit ("uso a bombinha só quando tô com
    falta de ar"), not an event now, unless the message says now ("quando fico nervosa sinto
    dor no peito, e agora tô assim") or tells of self-harm."""
    return bool(
        hits
        and all(kind != "self_harm" for kind, _ in hits)
        and _all_hypothetical(folded, spans, C.WHEN_HABITUAL)
        and not C.URGENT.search(folded)
    )


def _told_now(folded: str) -> bool:
    """Whether a clause with "agora" (or "neste momento") tells of a state or of something
    done: "e agora engoliu cinco", "agora ela tá vomitando"; not "onde guardo agora?"."""
    for lo, hi in _clauses(folded):
        clause = folded[lo:hi]
        rest = C.URGENT.sub(" ", clause)
        if rest != clause and (C.SIMPLE_PAST.search(rest) or C.STATE.search(rest)):
            return True
    return False


def _all_hypothetical(
    folded: str, spans: list[tuple[int, int]], cue: re.Pattern[str] = C.HYPOTHETICAL
) -> bool:
    """Whether every sign sits inside a hypothetical clause (or one of another `cue`)."""
    if not spans:
        return False
    clauses = [m.span() for m in cue.finditer(folded)]
    return bool(clauses) and all(any(lo <= a < hi for lo, hi in clauses) for a, _ in spans)


def _cues(folded: str, literal: str) -> tuple[list[tuple[str, str]], bool, bool, bool, bool, bool]:
    """(concept hits, informational, present, general question, every sign hypothetical,
    self-harm words that are not the writer's intent now)."""
    hits = concept_hits(literal)
    denied, denied_spans = _denied(literal)
    hits = [h for h in hits if h not in denied]
    spans = [s for s in concept_spans(literal) if s not in denied_spans] if hits else []
    informational = bool(
        C.INFORMATIONAL.search(folded)
        or C.INFORMATIONAL_MORE.search(folded)
        or (
            C.PAST.search(folded)
            and (not hits or _past_covers_signs(folded, spans))
            # a past event back now: "já infartou ano passado e agora tá com a mesma dor de novo"
            and not (C.PRESENT.search(folded) and C.RECUR.search(folded))
        )
    )
    # "hoje já está normal" names the day to say it is over; "e se isso acontecer comigo, o
    # que eu faço?" asks what to do in a case to come
    present = bool(C.PRESENT.search(_unsupposed(C.WELL_TODAY.sub(" ", folded))))
    if (
        present
        and hits
        # every sign found by a pattern with a place in the text (not a reading or a pairing)
        and set(hits) <= {(k, sub) for k, sub, _, _ in _matches(literal)}
        and C.PAST.search(folded)
        and _past_covers_signs(folded, spans)
        # "agora" counts where it tells of something ("e agora engoliu cinco"), not where it
        # asks ("onde guardo os remédios agora?")
        and not C.CRY.search(folded)
        and not _told_now(folded)
        and not C.RECUR.search(folded)
        and not _present_with_signs(folded, spans)
    ):
        # every sign is told in the past ("inchaço nos lábios há dois anos"); "hoje ela está
        # com uma nova cardiologista" is about something else
        present = False
    if (
        hits
        and not informational
        and not present
        and C.WELL.search(folded)
        # a faint, a low sugar or a dehydration that has passed; never chest pain, a stroke's
        # signs (a passing one is still urgent) or a bleed
        and all(kind == "medical" and sub in _PASSING for kind, sub in hits)
        and _past_covers_signs(folded, spans, C.RECENT_PAST)
    ):
        informational, present = True, False
    generic = C.GENERIC_QUESTION.search(folded)
    if generic:
        # A present-tense verb inside the general question ("como sei que estou tendo um
        # infarto?") is not an event; one before it ("ele está com a boca torta, quais os
        # sinais de AVC?") or a call for help still is.
        informational = True
        present = bool(C.URGENT.search(folded)) or any(
            m.start() < generic.start() for m in C.PRESENT.finditer(folded)
        )
    hypothetical = _all_hypothetical(folded, spans)
    if hypothetical:
        # Every sign is in a "se ... " clause: planning ahead, unless it cries for help.
        informational = True
        present = bool(C.CRY.search(folded))
    if _habit(folded, hits, spans):
        informational, present = True, False
    if C.CHRONIC.search(folded) and not present:
        hits = [h for h in hits if h[0] != "medical"]
    not_own = _not_own_intent(folded, literal)
    if not_own:
        # a topic, not an intent; and the exemplars, which share its words, do not decide
        hits = [("self_harm", "topic") if k == "self_harm" else (k, s) for k, s in hits]
        informational = True
    return hits, informational, present, bool(generic), hypothetical, not_own


def _unsupposed(folded: str) -> str:
    """The text with each supposed case blanked, from its "e se ..." to the end of its
    sentence: a present cue there ("e se isso acontecer comigo, o que eu faço?") tells of
    nothing now (a fresh author's f15-057, asked after "é verdade que ... pode fazer a
    língua inchar?")."""
    out = folded
    for m in C.HYPOTHETICAL.finditer(folded):
        end = re.search(r"[.?!;]|$", folded[m.end() :])
        stop = m.end() + (end.start() if end else 0)
        out = out[: m.start()] + " " * (stop - m.start()) + out[stop:]
    return out


def _denied(literal: str) -> tuple[set[tuple[str, str]], set[tuple[int, int]]]:
    """The medical signs every mention of which is denied ("tornozelo inchado, sem falta de
    ar"), and their spans: such a sign is not read. Never a self-harm or poisoning one."""
    spans: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for kind, sub, a, b in _matches(literal):
        if kind == "medical":
            spans.setdefault((kind, sub), []).append((a, b))
    hits = {
        h
        for h, where in spans.items()
        if all(C.DENIED_BEFORE.search(literal[:a]) for a, _ in where)
    }
    return hits, {s for h in hits for s in spans[h]}


def present_with_signs(folded: str, literal: str, present: bool) -> bool:
    """Whether a present cue is about the signs: a cry for help anywhere, a present cue in a
    clause with a sign, or a present cue in a message that tells nothing in the past. "Tive a
    boca inchada pelo enalapril há 3 anos. Agora um médico novo quer me passar de novo": the
    "agora" is about the prescription, not the swelling."""
    if not present:
        return False
    if C.CRY.search(folded) or not C.PAST.search(folded):
        return True
    return _present_with_signs(folded, concept_spans(literal))


def _not_own_intent(folded: str, literal: str) -> bool:
    """Self-harm words that are not the writer's intent now: about whoever has it ("o CVV é só
    pra quem quer se matar?"), or a past episode, treated, of someone who says they are stable
    ("tive ideação suicida há 3 anos, fiz tratamento e hoje tô estável")."""
    spans = [
        (a, b) for kind, sub, a, b in _matches(literal) if kind == "self_harm" and sub != "topic"
    ]
    if not spans or C.URGENT.search(folded) and not C.WELL_TODAY.search(folded):
        return False
    if all(C.WHOEVER.search(literal[:a]) for a, _ in spans) and not C.OWN_WISH.search(folded):
        return True
    return bool(
        C.STABLE.search(folded)
        and not C.RELAPSE.search(folded)
        and _past_covers_signs(folded, spans)
    )


def _read_not_felt(folded: str, literal: str) -> bool:
    """A warning read in a leaflet or the news by someone who says they are well ("a bula
    fala em pensamentos suicidas ... me sinto bem"): a question, not an intent."""
    return bool(
        C.SAYS_WELL.search(folded)
        and not C.URGENT.search(folded)
        and all(
            C.NOMINAL_SELF_HARM.search(m.group(0))
            for kind, sub, rx in _compiled()
            if kind == "self_harm" and sub != "topic"
            for m in rx.finditer(literal)
        )
    )


def swallowed_none(folded: str) -> bool:
    """Nothing was swallowed, with no doubt about it: a child who handled a blister pack and
    "não engoliu nada", "contei e não faltava nenhum" (never "acho que não engoliu")."""
    return bool(C.NOT_INGESTED.search(folded) and not C.INGESTION_DOUBT.search(folded))


def lethality(folded: str) -> bool:
    """A question about amounts, lethality or methods (C.LETHALITY); stopping a medicine at
    once ("parei o escitalopram de uma vez") is not one."""
    return bool(C.LETHALITY.search(C.STOPPING_AT_ONCE.sub(" ", folded)))


def literal(folded: str) -> str:
    """The folded message as the concepts and the evidence words read it: figures of speech
    set aside (C.FIGURATIVE: "morrendo de fome"). The exemplars and the classifier's
    embedding still see the whole text."""
    return str(C.FIGURATIVE.sub(" ", folded))


def self_harm_words(literal: str) -> bool:
    """Words of intent, death or harm to self in a message read literally: those of context
    (C.SELF_HARM_EVIDENCE) or of one's own intent (C.SELF_HARM_INTENT)."""
    return bool(C.SELF_HARM_EVIDENCE.search(literal) or C.SELF_HARM_INTENT.search(literal))


def self_harm_evidence(folded: str) -> bool:
    """Words of intent, death or harm to self (self_harm_words, read in `literal`), or a
    question about amounts, lethality or methods."""
    return self_harm_words(literal(folded)) or lethality(folded)


def _first_person(folded: str) -> bool:
    return bool(
        # pronouns, and verbs in the first person: "tenho vontade de morrer", "comecei a ..."
        re.search(
            r"\b(?:eu|me|mim|comigo|minha vida|meu|to|estou|quero|queria|vou|tenho|sinto|penso|"
            r"ando|fico|sou|acho|preciso|consigo|aguento|\w{2,}ei)\b",
            folded,
        )
    )
