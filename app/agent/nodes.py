"""The graph's nodes: plain functions of the state and the run's dependencies
(`runtime.context`, an AgentDeps), each returning a partial update. Wired in graph.py."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from langgraph.runtime import Runtime

from app.agent.answerability import GENERIC, QuestionBank, content_terms, mention_terms
from app.agent.answerability import decide as answerability
from app.agent.examples import ExampleBank
from app.agent.generators import (
    LOW_MOOD,
    Focus,
    Generator,
    guidance_sentence,
    is_guidance,
    need_of,
    speaks_to_stop,
)
from app.agent.intent import IntentModel
from app.agent.parts import clauses
from app.agent.safety import (
    CALM_LINE,
    ESCALATION,
    REFUSAL,
    not_covered,
    topic_prefix,
    uncovered_part,
)
from app.agent.scorer import Question
from app.agent.state import AgentState, Turn
from app.agent.text import sentences
from app.agent.vectors import SentenceVectors
from app.agent.verify import verify_draft
from app.core.config import Settings
from app.core.text import fold, tokenize
from app.core.thesaurus import thesaurus
from app.core.vocabulary import Entry, Mention, Vocabulary
from app.retrieval.coverage import CardLexicon, CardLexiconCache, mention_cards
from app.retrieval.models import ContextChunk
from app.retrieval.retriever import Retriever
from app.safety.emergency import EmergencyDetector
from app.safety.pii import clean_question
from app.safety.rules import rules

# How much a card about the medicine or condition the question names is lifted in the
# ranking (added to its cosine similarity; a card that only mentions it gets half).
# Tuned on the tuning half of the golden set (README, "Answerability and focus").
NAME_BOOST = 0.08
CONTEXT_BOOST = 0.05  # cards the previous turn cited, for a follow-up
# Weight of the card's lexical coverage of the question (IDF-weighted share of its content
# words found in the card) added to the ranking score: catches what a short question's
# embedding misses ("varfarina e couve pode?": couve is in card-017 only).
LEXICAL_WEIGHT = 0.15
CITE_FLOOR = 0.10
LONG_QUESTION = 400  # characters: the answerability of a longer message is judged on its end
# Cards the answer to an emergency should come from, by the card topics that name it.
EMERGENCY_TOPICS = {
    "stroke": ("avc",),
    "heart_attack": ("infarto",),
    "hypoglycaemia": ("hipoglicemia",),
    "anaphylaxis": ("angioedema",),
    "bleeding": ("sangramento", "anticoagulante"),
    "unconscious": ("hipoglicemia", "emergencia"),
    "hypertensive_crisis": ("pressao arterial",),
    "dehydration": ("metformina",),
    "confusion": ("polifarmacia", "quedas"),
    "poisoning": ("armazenamento", "paracetamol"),
}
# ... and, where several cards share the topic, the word their text must use: of the
# metformina cards, the one that tells what to do in a dehydration (card-004), not how to
# take the tablets (card-003)
EMERGENCY_TEXT = {"dehydration": "desidrat"}
EMERGENCY_BOOST = 0.15
BANK_WEIGHT, BANK_FLOOR, BANK_K = 0.5, 0.5, 3  # example questions' votes (see `retrieve`)
SUPPORT_TOPICS = {"saude mental", "cvv"}  # cards that may answer a self-harm question
WIDEN = 3  # candidates fetched per card kept, so a boosted card can rise into the top_k
_CONTINUATION = re.compile(
    r"^(?:e|mas|entao|tipo|ai|e se|e pra|e para|e no|e na|e quanto|e quando|e a|e o|e com|"
    r"isso|ele|ela|esse|essa|o mesmo|a mesma|nele|nela|dele|dela)\b"
)


# A question that asks for an amount to take ("quantas gotas de dipirona posso tomar?",
# "qtas unidades de insulina eu aplico?"): the cards never give doses.
DOSE_ASKED = re.compile(
    r"(?<!tao )\b(?:quant[oa]s?|qtas?|qtos?|qnt[oa]s?)\b(?! tempo| vezes| o | a | os | as )"
    r"(?:\W+\w+){0,3}?\W+"
    r"(?:comprimidos?|gotas?|mg|miligramas?|microgramas?|mcg|unidades?|ml|mililitros?|"
    r"capsulas?|jatos?|puffs?|doses?)\b|\b(?:qual a|qual|que) dose\b|\bdose maxima\b"
)


# A word that points back to what was said before ("tem algum jeito de diminuir esse
# mal-estar?" after a metformina turn).
_REFERS_BACK = re.compile(
    r"\b(?:esse|essa|esses|essas|isso|disso|nisso|desse|dessa|dele|dela|ele|ela|o mesmo|a mesma)\b"
)


@dataclass
class AgentDeps:
    settings: Settings
    retriever: Retriever
    generator: Generator
    vectors: SentenceVectors
    detector: EmergencyDetector
    lexicon: CardLexiconCache
    vocabulary: Vocabulary
    model: dict[str, Any]
    bank: QuestionBank
    intents: IntentModel | None = None
    examples: Any = ExampleBank.empty  # () -> the example questions of the served build
    sentences: Any = None  # the extractive generator: scores card sentences for a question


def focus_names(mentions: list[Mention], carried: list[Entry]) -> list[Entry]:
    """The covered names an answer stays on: the medicines the question names, else its
    conditions and topics, else the names carried from the previous turn."""
    covered = list(dict.fromkeys(m.entry for m in mentions if m.entry.covered))
    medicines = [e for e in covered if e.kind == "medicine"]
    return medicines or covered or carried


def _timings(state: AgentState, **new: float) -> dict[str, float]:
    timings = dict(state.get("timings_ms", {}))
    timings.update(new)
    return timings


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def follow_up_topic(
    query: str, mentions: list[Mention], history: list[Turn], vocabulary: Vocabulary
) -> tuple[list[Entry], list[str]]:
    """For a follow-up that names nothing of its own ("e se eu tomar com café?"), the
    covered names and cited cards of the latest earlier turn that had them."""
    if mentions or not history:
        return [], []
    words = fold(query).split()
    if not (
        _CONTINUATION.match(fold(query)) or len(words) <= 6 or _REFERS_BACK.search(fold(query))
    ):
        return [], []
    # The names of the latest turn that named something, and the cards of the latest turn
    # that cited: a nameless turn in between ("quanto tempo demora pra passar?") keeps the
    # conversation on the medicine named before it.
    names: list[Entry] = []
    cards: list[str] | None = None
    for turn in reversed(history):
        if cards is None and turn.get("citations"):
            cards = list(turn["citations"])
        names = [m.entry for m in vocabulary.find(turn["question"]) if m.entry.covered]
        if names:
            break
    return list(dict.fromkeys(names)), cards or []


def what_is_asked(query: str, mentions: list[Mention]) -> str | None:
    """The question without the medicines it names ("uso omeprazol há 5 anos, faz mal?" ->
    "uso há 5 anos, faz mal?"), or None when it names none or less than two words are left. Inside a
    card about omeprazol every sentence shares the name, and with it in the question the
    embedder picked "O omeprazol deve ser tomado em jejum" (0.50) over "O uso prolongado,
    por meses ou anos..." (0.27); without it, 0.06 against 0.35."""
    spans = [m.span for m in mentions if m.entry.covered and m.span[1] > m.span[0]]
    if not spans:
        return None
    asked = query
    for start, end in sorted(spans, reverse=True):
        asked = asked[:start] + " " + asked[end:]
    asked = " ".join(asked.split())
    # One word left ("bombinha espaçador criança" -> "criança") says too little to choose by.
    return asked if len(content_terms(asked)) >= 2 else None


def part_text(part: str, mentions: list[Mention], vocabulary: Vocabulary) -> str:
    """A part of the question as embedded: with the message's first covered name in front
    when the part names nothing covered itself."""
    first = next((m.entry for m in mentions if m.entry.covered), None)
    if first is None or any(m.entry.covered for m in vocabulary.find(part)):
        return part
    return f"{first.name}: {part}"


def screen(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    """Personal data out, names recognised, follow-up context, emergency assessed."""
    deps = runtime.context
    started = time.perf_counter()
    query = clean_question(state["question"])
    mentions = deps.vocabulary.find(query)
    carried, context_cards = follow_up_topic(
        query, mentions, state.get("history", []), deps.vocabulary
    )
    search_query = deps.vocabulary.normalise(query)
    topic = None
    if carried:
        topic = carried[0].display
        search_query = f"{carried[0].name}: {search_query}"
    elif context_cards:
        topic = None  # the previous cards steer retrieval; no name to announce
    # The emergency exemplars are embedded accent-folded and lower-cased, so the question
    # is compared to them the same way: "NAO CONSIGO PUXAR O AR" embedded as typed sat at
    # 0.31 from the nearest heart-attack exemplars, and at 0.59 folded.
    # Retrieval reads the same folded vector unless a name was normalised: on the tuning
    # half, folded and as-typed queries ranked the same (recall@1 0.914 both), and one
    # text fewer to embed is ~2 ms of the ask.
    folded = fold(query)
    texts = [folded] if search_query == query else [folded, search_query]
    asked = what_is_asked(query, mentions)
    parts = clauses(query)
    parts = parts if len(parts) >= 2 else []
    # one batched call: the question folded, as searched, what it asks, and its parts (a part
    # that names nothing is read with the message's first name: "e ele atrapalha o remédio
    # da tireoide?" after "o omeprazol é antes do café?")
    extra = ([asked] if asked else []) + [
        fold(part_text(p, mentions, deps.vocabulary)) for p in parts
    ]
    vectors = deps.retriever.embedder.embed([*texts, *extra])
    assessment = deps.detector.assess(state["question"], vectors[0])
    # A follow-up names nothing of its own, so it is all "what is asked": retrieval reads it
    # with the carried name in front ("metformina: e se der dor de barriga?"), and the
    # sentences are chosen by the follow-up's own words (vectors[0]). With the name, the
    # card's "A metformina ... deve ser tomada junto com as refeições" opened that answer.
    asked_vector = vectors[len(texts)] if asked else (vectors[0] if carried else None)
    return {
        "folded_vector": vectors[0],
        "clauses": list(zip(parts, vectors[len(vectors) - len(parts) :], strict=True)),
        "query": query,
        "search_query": search_query,
        "topic": topic,
        "query_vector": vectors[len(texts) - 1],
        "asked_vector": asked_vector,
        "emergency": assessment.kind,
        "uncertain": assessment.uncertain,
        "emergency_signals": {"subkind": assessment.subkind, **assessment.signals},
        "mentions": mentions,
        "carried": carried,
        "context_cards": context_cards,
        "timings_ms": _timings(state, screen=_ms(started)),
    }


def rerank(
    candidates: list[ContextChunk], boost: dict[str, float], lexical: dict[str, float], top_k: int
) -> list[ContextChunk]:
    """Cards by retrieval's rank score (cosine + chunk bonus) + name boost + lexical
    coverage; `score` stays the cosine (the decision and the reports use it), the ranking
    score is kept in the metadata."""
    for c in candidates:
        base = float(c.metadata.get("rank_score", c.score))
        c.metadata["rank_score"] = round(
            base + boost.get(c.id, 0.0) + LEXICAL_WEIGHT * lexical.get(c.id, 0.0), 6
        )
    ranked = sorted(candidates, key=lambda c: (-c.metadata["rank_score"], c.id))
    return ranked[:top_k]


def _emergency_cards(state: AgentState, lexicon: CardLexicon) -> list[str]:
    """Cards whose topics name the emergency the question describes (card-018 for a stroke)."""
    if not state.get("emergency"):
        return []
    sub = str(state.get("emergency_signals", {}).get("subkind") or state["emergency"])
    wanted = EMERGENCY_TOPICS.get(sub, ())
    cards = [c for c in lexicon.cards.values() if any(fold(t) in wanted for t in c.topics)]
    word = EMERGENCY_TEXT.get(sub)
    if word:
        cards = [c for c in cards if word in fold(c.text)] or cards
    return [c.id for c in cards]


def retrieve(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    top_k = state.get("top_k") or deps.settings.top_k
    lexicon = deps.lexicon.get()
    mentions: list[Mention] = state.get("mentions", [])
    carried: list[Entry] = state.get("carried", [])
    names = focus_names(mentions, carried)
    named = list(dict.fromkeys(m.entry for m in mentions if m.entry.covered)) or carried
    boost = {
        card: NAME_BOOST
        for card, weight in mention_cards(
            lexicon, [Mention(e, e.name, 0, 0, True) for e in named]
        ).items()
        if weight >= 1.0  # cards about the name; a mere mention in the text gets nothing
    }
    for card in state.get("context_cards", []):
        boost[card] = max(boost.get(card, 0.0), CONTEXT_BOOST)
    # Known patient questions near this one vote for the card that answers them (tuning half:
    # recall@1 0.926 -> 0.952 leave-one-out, at weight 0.5 over a similarity of 0.5, 3 nearest;
    # 0.1-0.3 and floors 0.6-0.7 gained less).
    votes = deps.bank.card_votes(np.asarray(state["query_vector"]), state["search_query"], k=BANK_K)
    for card, sim in votes.items():
        if sim > BANK_FLOOR:
            boost[card] = boost.get(card, 0.0) + BANK_WEIGHT * (sim - BANK_FLOOR)
    emergency_cards = _emergency_cards(state, lexicon)
    for card in emergency_cards:
        boost[card] = boost.get(card, 0.0) + EMERGENCY_BOOST
    result = deps.retriever.search(
        state["search_query"], top_k * WIDEN, vector=state["query_vector"]
    )
    terms = content_terms(state["search_query"])
    lexical = {c.id: lexicon.coverage(terms, c.id) for c in result.candidates}
    candidates = rerank(result.candidates, boost, lexical, top_k)
    about = {
        c
        for c, w in mention_cards(lexicon, [Mention(e, e.name, 0, 0, True) for e in names]).items()
        if w >= 1.0
    }
    # The answerability decision (next node) is the gate; a card this far from the
    # question is never cited even when the decision says the cards cover it.
    parents = [c for c in candidates if c.score >= CITE_FLOOR or c.id in about]
    if emergency_cards:
        about = set(emergency_cards)  # the answer to an emergency stays on its signs
    return {
        "candidates": candidates,
        "parents": parents,
        "lexicon": lexicon,
        "about": about,
        "timings_ms": _timings(state, **result.timings_ms),
    }


def _must_answer(state: AgentState, lexicon: CardLexicon, focus: Focus) -> bool:
    """Low mood told ("ando muito triste, sem vontade de nada faz semanas") is answered
    whatever the decision's score, when a card on where to get help (topics saúde mental,
    CVV) is among those it may cite: the line on where to find help comes first."""
    parents = state.get("parents", [])
    if state.get("emergency") or not parents:
        return False
    if focus.low_mood:
        return any(
            {fold(t) for t in lexicon.cards[p.id].topics} & SUPPORT_TOPICS
            for p in parents
            if p.id in lexicon.cards
        )
    return False


def _covered(state: AgentState, lexicon: CardLexicon, answerable: bool) -> bool:
    """Whether the cards answer, given the answerability decision and the emergency if any.

    - An emergency whose signs' card ranks first is answered from it (what to look for,
      what to do) even when the wording is far from any card: "a boca torta e não mexe o
      braço" gets the stroke signs under the escalation, not the escalation alone.
    - A poisoning named by the rules is answered only from a card about it (storage out of
      children's reach, the paracetamol limit), never from whatever card ranked first.
    - Safe messaging: a message read as self-harm (intent, a method question), by the rules
      or by resemblance to the exemplars, gets no medicine or dose details, only a card about
      getting help in a crisis (its topics name saúde mental or the CVV). An informational
      question read as self-harm by mistake loses its answer too: the escalation it gets
      says where to find help, and a method question that resembles an informational one
      must never get the lines that confirm the method.
    Other emergencies found by resemblance alone keep their answer under the escalation."""
    parents = state.get("parents", [])
    if not parents:
        return False
    emergency = state.get("emergency")
    top = parents[0].id
    signs_card = (
        bool(emergency)
        and top in state.get("about", set())
        and top in _emergency_cards(state, lexicon)
    )
    covered = answerable or signs_card
    if covered and emergency == "self_harm":
        # Whatever found it, rules or resemblance: "tomar a caixa toda de clonazepam com
        # cachaça resolve de vez?" (found by resemblance) was answered with the sleep card's
        # "a mistura aumenta muito a sedação e pode deprimir a respiração".
        card = lexicon.cards.get(top)
        return card is not None and bool({fold(t) for t in card.topics} & SUPPORT_TOPICS)
    by_rule = state.get("emergency_signals", {}).get("by") == "concept"
    if covered and by_rule and emergency == "poisoning":
        return top in _emergency_cards(state, lexicon)
    return covered


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


def decide(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    """Answer, not covered, or emergency (which always escalates, and answers too when the
    cards cover the question)."""
    deps = runtime.context
    started = time.perf_counter()
    lexicon: CardLexicon = state["lexicon"]
    mentions: list[Mention] = state.get("mentions", [])
    carried: list[Entry] = state.get("carried", [])
    mentions = asked_mentions(state["query"], mentions)
    if carried:
        mentions = mentions + [Mention(e, e.name, 0, 0, True) for e in carried]
    # A long message (a story, then the question) is judged on its end, where patients ask.
    text = state["search_query"]
    if len(text) > LONG_QUESTION:
        text = text[-LONG_QUESTION:].split(" ", 1)[-1]
    focus = make_focus(state, deps)
    decision = answerability(
        text,
        mentions,
        state.get("candidates", []),
        lexicon,
        np.asarray(state["query_vector"]),
        deps.vectors.get,
        deps.bank,
        deps.model,
        original=state["query"],
        answer=answer_signals(focus, deps),
    )
    answerable = decision.outcome == "answer" or _must_answer(state, lexicon, focus)
    covered = _covered(state, lexicon, answerable)
    dose = not state.get("emergency") and bool(DOSE_ASKED.search(fold(state["query"])))
    if dose:
        # The cards never give a dose, and a line about the medicine reads as if they did
        # ("quantas unidades de insulina eu aplico?" got the injection sites): not covered,
        # and the answer says why.
        covered = False
        decision.uncovered_terms = ["a dose a tomar (quem define é o médico)"]
        decision.reason = "A pergunta pede uma dose, e os cartões não indicam doses."
    outcome = "emergency" if state.get("emergency") else ("answer" if covered else "not_covered")
    reason = decision.reason
    if outcome == "emergency":
        what = rules().kinds[str(state["emergency"])].label
        reason = f"A pergunta descreve uma possível {what}: encaminhada à emergência. {reason}"
    signals = {**decision.signals, "emergency": state.get("emergency_signals", {})}
    suggestions = []
    if not covered:
        for c in state.get("candidates", [])[:3]:
            if c.score >= deps.settings.min_similarity * 0.6:
                suggestions.append(
                    {
                        "id": c.id,
                        "title": str(c.metadata.get("title", "")),
                        "question": str(c.metadata.get("title", "")),
                    }
                )
    return {
        "focus": focus,
        "decision": {"outcome": outcome, "covered": covered, "reason": reason, "signals": signals},
        "uncovered_terms": [] if covered else decision.uncovered_terms,
        "suggestions": [] if covered or outcome == "emergency" else suggestions,
        "timings_ms": _timings(state, decide=_ms(started)),
    }


def route(state: AgentState) -> Literal["generate", "refuse"]:
    return "generate" if state["decision"]["covered"] else "refuse"


def refuse(state: AgentState) -> dict[str, Any]:
    text = REFUSAL if state.get("emergency") else not_covered(state.get("uncovered_terms", []))
    return {
        "answer": text,
        "citations": [],
        "citation_warnings": [],
        "refused": True,
        "generator": "none",
    }


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
        rank_scores={p.id: float(p.metadata.get("rank_score", p.score)) for p in parents},
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


def generate(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    started = time.perf_counter()
    focus = state.get("focus") or make_focus(state, deps)
    parents: list[ContextChunk] = state["parents"]
    query_vector = np.asarray(state["query_vector"])
    draft = deps.generator.generate(state["query"], parents, query_vector, focus)
    return {
        "focus": focus,
        "draft": draft.text,
        "draft_citations": draft.citations,
        "generator": draft.generator,
        "citation_warnings": draft.warnings,
        "uncovered_parts": draft.uncovered,
        "timings_ms": _timings(state, generate=_ms(started)),
    }


def verify(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    started = time.perf_counter()
    checked = verify_draft(
        state["draft"],
        state["draft_citations"],
        state["parents"],
        deps.vectors,
        deps.settings.grounding_min_similarity,
    )
    warnings = list(state.get("citation_warnings", [])) + checked.warnings
    answer, citations = checked.answer, list(checked.citations)
    focus: Focus | None = state.get("focus")
    if (
        focus
        and focus.need
        and citations
        and not any(is_guidance(s, focus.need) for s in sentences(answer))
        # the extractive answer already quotes its card's own words on stopping; a model's
        # answer still gets the cards' explicit "não pare por conta própria"
        and not (
            focus.need == "stop"
            and state.get("generator") == "extractive"
            and any(speaks_to_stop(s) for s in sentences(answer))
        )
    ):
        # Whoever wrote the answer, a stop/double/change question gets the cards' guidance.
        found = guidance_sentence(
            state["parents"], focus, deps.vectors, np.asarray(state["query_vector"]), answer
        )
        if found:
            # after the answer: the card that answers keeps the first citation
            answer = f"{answer} {found[0]} [cite:{found[1]}]"
            citations = list(dict.fromkeys([*citations, found[1]]))
    if not citations and focus and focus.need:
        # Nothing verified is left, but a stop/double/change question still gets the
        # cards' guidance rather than a refusal.
        found = guidance_sentence(
            state["parents"], focus, deps.vectors, np.asarray(state["query_vector"])
        )
        if found:
            answer, citations = f"{found[0]} [cite:{found[1]}]", [found[1]]
    if not citations:
        return {
            "answer": REFUSAL,
            "citations": [],
            "refused": True,
            "citation_warnings": warnings + ["no verified citation left: answer refused"],
            "timings_ms": _timings(state, verify=_ms(started)),
        }
    return {
        "answer": answer,
        "citations": citations,
        "refused": False,
        "citation_warnings": warnings,
        "timings_ms": _timings(state, verify=_ms(started)),
    }


def respond(state: AgentState) -> dict[str, Any]:
    """The escalation first; the topic a follow-up assumed; then the answer."""
    answer = state["answer"]
    if state.get("topic") and not state.get("refused"):
        answer = topic_prefix(str(state["topic"])) + answer
    if state.get("uncovered_parts") and not state.get("refused"):
        answer = f"{answer}\n\n{uncovered_part(state['uncovered_parts'])}"
    if state.get("uncertain") and not state.get("emergency"):
        # a reading too weak to escalate on: the answer, then one calm line
        answer = f"{answer}\n\n{CALM_LINE[str(state['uncertain'])]}"
    kind = state.get("emergency")
    if kind:
        # "The knowledge base does not cover this" reads coldly after an escalation.
        answer = ESCALATION[kind] if state.get("refused") else f"{ESCALATION[kind]}\n\n{answer}"
    return {"answer": answer}
