"""What the answer stays on (`Focus`) and the question as the sentence scorer reads it: the
names asked about, the cards of other medicines, what the patient needs (stop, double,
change, a missed dose), the words that choose a line, and the cards' sentences scored once
for the question. `make_focus` builds it from the run's state; the predicates below read a
sentence against it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from app.agent.answerability import GENERIC, mention_terms
from app.agent.followup import example_vector, focus_names
from app.agent.scorer import Candidate, Question, exact_names, medicines_named, names_in
from app.agent.state import AgentState
from app.core.text import fold, tokenize
from app.core.thesaurus import thesaurus
from app.core.vocabulary import Entry, Mention, Vocabulary
from app.retrieval.coverage import CardLexicon
from app.retrieval.models import ContextChunk

if TYPE_CHECKING:
    from app.agent.deps import AgentDeps


@dataclass
class Focus:
    """What the answer must stay on: the covered names the question (or the topic carried
    from the previous turn) mentions, the cards about them, and what the patient needs."""

    names: list[Entry] = field(default_factory=list)
    about: set[str] = field(default_factory=set)
    need: str | None = None  # "stop" | "double" | "change" | "missed"
    about_of: dict[str, set[str]] = field(default_factory=dict)  # card -> names it is about
    # name -> cards about it, for the names the question gives itself (not those carried)
    cards_of: dict[str, set[str]] = field(default_factory=dict)
    foreign: set[str] = field(default_factory=set)  # cards about a medicine not asked about
    card_medicines: dict[str, set[str]] = field(default_factory=dict)  # card -> its medicines
    urgent: bool = False  # an emergency: the card's lines on what to do come first
    crisis: bool = False  # a self-harm escalation: only lines on where to get help may speak
    asked: Any = None  # the question without the names it gives (AgentState.asked_vector)
    low_mood: bool = False  # tells of sadness or hopelessness: where to get help comes first
    question: Question | None = None  # the question as the sentence scorer reads it
    clauses: list[Question] = field(default_factory=list)  # its parts, when it asks several
    pool: list[Candidate] | None = None  # the cited cards' sentences, scored for `question`
    scored_with: Any = None  # the scorer that scored `pool`


# Low mood told, not asked about ("tô muito triste e sem vontade de nada faz semanas"): the
# cards' line on where to get help answers it, not how to take an antidepressant.
LOW_MOOD = re.compile(
    r"\b(?:(?:to|tou|estou|ando|me sinto|me sentindo|sinto|fico|ficando|anda|esta|ta) (?:muito |tao |bem |"
    r"super |meio )?(?:triste|deprimid[oa]|desanimad[oa]|pra baixo|sem esperanca|desesperad[oa]|vazi[oa]|"
    r"sozinh[oa]|angustiad[oa]|sem vontade)|sem vontade de (?:nada|fazer nada|viver|sair da cama)|"
    r"chorando (?:o tempo todo|todo dia|toda hora|sem parar)|nao (?:tenho|sinto) (?:mais )?(?:vontade|"
    r"animo|prazer) (?:de|pra|para|em) (?:nada|viver|fazer nada))\b"
)


_ASK = r"(?:posso|pode|podem|devo|deve|da pra|da para|quero|queria|vou|preciso|tenho que|tem que|seria bom|e bom|e melhor|ja posso)"
# "cortar" is about the medicine only when it says so: "adoro couve, vou ter que cortar?" is
# about the food.
_CUT_PILL = r"cortar(?= (?:o |a |os |as )?(?:remedio|comprimido|dose|medicamento|ao meio|no meio|pela metade))"
_CUT_STOP = (
    r"cortar(?= (?:o |a |os |as )?(?:remedio|comprimido|dose|medicamento)s?\b"
    r"(?! (?:ao meio|no meio|pela metade|em dois)))"
)
_NEEDS = {
    "stop": rf"\b{_ASK}\s+(?:\w+\s+){{0,2}}?(?:parar|suspender|largar|deixar de tomar|interromper|tirar|"
    rf"{_CUT_STOP}|abandonar|ficar sem)\b|\b(?:parei|larguei|suspendi|deixei de tomar|interrompi|parar de tomar|"
    r"parar o remedio|parar com o remedio|nao tomar mais|sem o remedio|paro|largo|suspendo|"
    r"interrompo|deixo de tomar|paramos|parando)\b",
    "double": r"\b(?:dobr\w*|tomar dois|tomar duas|dose dupla|em dobro|tomar (?:mais|outro|outra) "
    r"(?:comprimido|dose)|compens\w*|tomo de novo|tomar de novo|tomo outro|tomo outra)\b",
    "change": rf"\b{_ASK}\s+(?:\w+\s+){{0,2}}?(?:aumentar|diminuir|reduzir|trocar|mudar|{_CUT_PILL}|partir|"
    r"baixar|subir)\b|\b(?:aument|diminu|reduz|baix|sub)\w* (?:a|essa|minha) dose\b|"
    r"\btomar (?:mais|menos) (?:remedio|comprimido|dose)\b|\bmeio comprimido\b",
}

# A dose missed (an event: "esqueci a metformina do almoço", "e se ele esquecer a da noite?"),
# not how to remember ("dicas pra não esquecer", "sempre esqueço a bombinha"), nor something
# left somewhere ("esqueci a insulina fora da geladeira", "esqueci de marcar o dia").
_MISSED = re.compile(
    r"\besquec\w* de (?:tomar|aplicar|usar|dar|toma-l\w+)\b|\b(?:esqueci|esqueceu|esquecemos)\b(?! de)|"
    r"\bse (?:\w+ )?(?:esquecer|esquece)\b|\bcaso (?:\w+ )?esque[cç]a\b|"
    r"\b(?:pulei|pulou|nao tomei|nao tomou|deixei de tomar|deixou de tomar|perdi a hora|perdeu a hora)\b"
)
_REMEMBERING = re.compile(
    r"\bnao (?:me |se |nos )?esquec\w*|\bsem esquecer\b|\b(?:vivo|vive|vivem|ando|anda) esquecendo\b|"
    r"\bsempre esquec\w*|\b(?:dica|truque|jeito|estrategia)s? (?:\w+ ){0,3}(?:lembrar|esquecer)\b|"
    r"\besquece (?:os|o|a|as|meus|seus) remedio|\besquece (?:direto|muito|toda hora|sempre)\b|"
    r"\besquec\w* (?:\w+ ){0,4}?(?:fora da geladeira|no carro|no sol|na bolsa|aberta|aberto)\b|"
    # what someone said, forgotten: "a enfermeira falou alguma coisa mas eu esqueci" (f14)
    r"\b(?:falou|falaram|disse|disseram|explicou|explicaram|orientou|ensinou|passou|avisou|"
    r"mostrou)\b(?:\W+(?!ontem|hoje|anteontem|hj)\w+){0,8}?\W+(?:eu )?esqueci\b(?! de)|"
    r"\besqueci (?:o que|oq|o q|como (?:faz|era|se faz)|a explicacao|a orientacao|o nome)\b"
)


def missed_dose(question: str) -> bool:
    """Whether the question is about a dose missed (the cards' missed-dose rule answers it)."""
    folded = fold(question)
    return bool(_MISSED.search(folded)) and not _REMEMBERING.search(folded)


def need_of(question: str) -> str | None:
    folded = fold(question)
    for need, pattern in _NEEDS.items():
        if re.search(pattern, folded):
            return need
    return "missed" if missed_dose(question) else None


def mentions_name(sentence: str, names: list[Entry]) -> bool:
    return names_in(sentence, tuple(a for e in names for a in e.aliases))


def names_other_medicine(sentence: str, names: list[Entry]) -> bool:
    """Whether the sentence is about a medicine the question did not name."""
    return bool(medicines_named(sentence) - {e.name for e in names})


def names_a_medicine_of(c: Any, focus: Focus) -> bool:
    """Whether the sentence names another medicine its own card is about."""
    asked = {e.name for e in focus.names}
    others = focus.card_medicines.get(c.card, set()) - asked
    return any(name in others for name, _ in exact_names(c.text))


# Words that carry no topic for choosing a sentence: the decision's list, less the times of
# day ("posso tomar a losartana à noite?" asks about the night; the decision drops "noite"
# as part of a greeting).
_SCORER_GENERIC = GENERIC - frozenset(tokenize("noite tarde dia manhã"))


def word_groups(
    text: str, named: set[str], lexicon: CardLexicon
) -> list[tuple[frozenset[str], float]]:
    """The question's words for the sentence scorer's lexical overlap, each with the cards'
    words it stands for (kb/thesaurus.yaml) and its IDF weight. The words of the names it
    gives do not choose the line: every sentence of a card about hipoglicemia shares them."""
    terms = [t for t in tokenize(text) if t not in _SCORER_GENERIC and not t.isdigit()]
    groups = thesaurus().groups(text, [t for t in terms if t not in named])
    return [(g, max(lexicon.idf.get(t, lexicon.max_idf) for t in g)) for g in groups]


def scorer_question(
    text: str,
    vector: np.ndarray,
    folded: np.ndarray,
    asked: np.ndarray | None,
    deps: AgentDeps,
    lexicon: CardLexicon,
    named: set[str],
    focus: Focus,
    parents: list[ContextChunk],
) -> Question:
    return Question(
        text=text,
        vector=vector,
        folded=folded,
        asked=asked,
        intents=deps.intents.predict(folded) if deps.intents is not None else None,
        groups=word_groups(text, named, lexicon),
        names=focus.names,
        about=focus.about,
        rank_scores={p.id: p.rank_score for p in parents},
    )


def foreign_cards(names: list[Entry], lexicon: CardLexicon, vocabulary: Vocabulary) -> set[str]:
    """Cards about a medicine other than the one(s) asked about: when the question (or the
    conversation) is about a medicine, such a card does not answer it."""
    asked = {e.name for e in names if e.kind == "medicine"}
    if not asked:
        return set()
    own = {c for e in names for c in lexicon.cards_for(e)[0]}
    other = {
        c
        for e in vocabulary.covered_entries()
        if e.kind == "medicine" and e.name not in asked
        for c in lexicon.cards_for(e)[0]
    }
    return other - own


def make_focus(state: AgentState, deps: AgentDeps) -> Focus:
    """What the answer stays on, and the question as the sentence scorer reads it; with the
    quotable sentences of the cards the answer may cite, scored once (the decision reads
    the best of them, the generator composes the answer from them)."""
    mentions: list[Mention] = state.get("mentions", [])
    carried: list[Entry] = state.get("carried", [])
    names = [] if state.get("emergency") else focus_names(mentions, carried)
    lexicon: CardLexicon = state["lexicon"]
    parents: list[ContextChunk] = state.get("parents", [])
    about_of: dict[str, set[str]] = {}
    cards_of: dict[str, set[str]] = {}
    # A carried name is the conversation's, not a part of this question: "e no domingo ele
    # pode tomar uma cervejinha?" after a metformina turn asks one thing, and as two parts
    # (metformina, álcool) it opened with the metformina card's line on meals.
    own = {m.entry.name for m in mentions if m.entry.covered}
    for entry in names:
        for card in lexicon.cards_for(entry)[0]:
            about_of.setdefault(card, set()).add(entry.name)
            if entry.name in own:
                cards_of.setdefault(entry.name, set()).add(card)
    focus = Focus(
        names=names,
        about=set(state.get("about", set())),
        need=need_of(state["query"]),
        about_of=about_of,
        cards_of=cards_of,
        # in an emergency too: "tomo AAS e estou vomitando sangue" is not the warfarin card's
        foreign=foreign_cards(focus_names(mentions, carried), lexicon, deps.vocabulary),
        card_medicines=card_medicines(lexicon, deps.vocabulary),
        urgent=bool(state.get("emergency")),
        crisis=state.get("emergency") == "self_harm",
        asked=state.get("asked_vector"),
        low_mood=bool(LOW_MOOD.search(fold(state["query"]))),
    )
    named = mention_terms([m for m in mentions if m.entry.covered])
    query_vector = np.asarray(state["query_vector"])
    folded = example_vector(state)
    asked = state.get("asked_vector")
    focus.question = scorer_question(
        state["query"], query_vector, folded, asked, deps, lexicon, named, focus, parents
    )
    focus.question.example_sims = state.get("example_sims")
    focus.clauses = [
        scorer_question(text, vec, vec, None, deps, lexicon, named, focus, parents)
        for text, vec in state.get("clauses", [])
    ]
    if deps.sentences is not None and parents:
        focus.pool = deps.sentences.scored_pool(focus.question, parents)
        focus.scored_with = deps.sentences.scorer
    return focus


def card_medicines(lexicon: CardLexicon, vocabulary: Vocabulary) -> dict[str, set[str]]:
    """Card -> the medicines it is about (its title or topics name them)."""
    out: dict[str, set[str]] = {}
    for e in vocabulary.covered_entries():
        if e.kind == "medicine":
            for card in lexicon.cards_for(e)[0]:
                out.setdefault(card, set()).add(e.name)
    return out
