"""What the answer stays on (`Focus`) and the question as the sentence scorer reads it:
the names asked about, the cards of other medicines, the words that choose a line, and what
the scorer says of the cards the answer may cite."""

from __future__ import annotations

import re

import numpy as np

from app.agent.answerability import GENERIC, mention_terms
from app.agent.deps import AgentDeps
from app.agent.followup import focus_names
from app.agent.generators import LOW_MOOD, Focus, need_of
from app.agent.scorer import Question
from app.agent.state import AgentState
from app.core.text import fold, tokenize
from app.core.thesaurus import thesaurus
from app.core.vocabulary import Entry, Mention, Vocabulary
from app.retrieval.coverage import CardLexicon
from app.retrieval.models import ContextChunk

_SENTENCE = re.compile(r"[^.!?]*[.!?]+|[^.!?]+$")


def asked_mentions(query: str, mentions: list[Mention]) -> list[Mention]:
    """The names the decision judges: every covered one, and the uncovered ones of the
    sentences that ask (those with a question mark; the last one when none has). An
    uncovered name in the story around the question only describes the situation: "minha
    mãe toma varfarina por causa de uma arritmia e adora couve. precisa cortar a couve?"
    asks about couve, not about arritmia."""
    spans = [(m.start(), m.end()) for m in _SENTENCE.finditer(query) if m.group().strip()]
    if len(spans) < 2:
        return mentions
    asking = [(a, b) for a, b in spans if "?" in query[a:b]] or [spans[-1]]

    def asked(m: Mention) -> bool:
        start, end = m.span
        return end <= start or any(a <= start < b for a, b in asking)

    return [m for m in mentions if m.entry.covered or asked(m)]


def answer_signals(focus: Focus, deps: AgentDeps) -> dict[str, float]:
    """What the sentence scorer says of the cards the answer may cite: the best P(answers)
    of one of their sentences, and the best similarity of the question to one of their
    sentences' example questions (kb/questions)."""
    pool = focus.pool or []
    if not pool or focus.question is None:
        return {"answer_p": 0.0, "example_sim": 0.0}
    cards = {c.card for c in pool}
    exclude = getattr(deps.sentences, "exclude_author", None)
    sims = deps.examples().similarities(focus.question.folded, exclude_author=exclude)
    best = max((v for sid, v in sims.items() if sid.rsplit(":", 1)[0] in cards), default=0.0)
    return {"answer_p": max(c.score for c in pool), "example_sim": max(best, 0.0)}


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
    for entry in names:
        for card in lexicon.cards_for(entry)[0]:
            about_of.setdefault(card, set()).add(entry.name)
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
        asked=state.get("asked_vector"),
        low_mood=bool(LOW_MOOD.search(fold(state["query"]))),
    )
    named = mention_terms([m for m in mentions if m.entry.covered])
    query_vector = np.asarray(state["query_vector"])
    # a follow-up is compared with the example questions as searched, with the topic it
    # carries in front ("insulina: e depois de aberta?"): alone it names nothing
    folded = query_vector if carried else np.asarray(state.get("folded_vector", query_vector))
    asked = state.get("asked_vector")
    focus.question = scorer_question(
        state["query"], query_vector, folded, asked, deps, lexicon, named, focus, parents
    )
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
