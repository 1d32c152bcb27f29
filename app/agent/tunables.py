"""The agent's tuned numbers, in one place: ranking weights, thresholds, margins and limits.

Each value has its docstring: what it does and, where it was measured, how it was chosen.
"The tuning half" is the tuning half of the golden set (tests/eval); "the tuning authors"
are those of kb/questions the sentence scorer trains on. Changing a value here changes the
answers: measure it there first (README, "Answerability and focus"; python -m
evaluation.sentence_scorer prints the composition sweep).

Modules import these by name (`from app.agent.tunables import EXTRA_MIN`), so a sweep that
sets a module's copy (evaluation.sentence_scorer sets app.agent.compose's thresholds) still
reaches the code that reads it.
"""

from __future__ import annotations

# --- Ranking (app.agent.ranking, the retrieve node) ---------------------------------------
# The learned card ranker (app.agent.card_ranker, card_ranker.json) weighs the same signals;
# the hand-set lifts below rank the cards only before it is first trained, and BANK_FLOOR
# and BANK_K say which known questions vote in both.

NAME_BOOST = 0.08
"""How much a card about the medicine or condition the question names is lifted in the
ranking (added to its cosine similarity; a card that only mentions it gets nothing). Tuned on
the tuning half of the golden set (README, "Answerability and focus")."""

CONTEXT_BOOST = 0.05
"""Lift of the cards the previous turn cited, for a follow-up."""

LEXICAL_WEIGHT = 0.15
"""Weight of the card's lexical coverage of the question (IDF-weighted share of its content
words found in the card) added to the ranking score: catches what a short question's
embedding misses ("varfarina e couve pode?": couve is in card-017 only)."""

BANK_WEIGHT = 0.5
"""Known patient questions near this one vote for the card that answers them: a vote adds
BANK_WEIGHT x (similarity - BANK_FLOOR). Tuning half: recall@1 0.926 -> 0.952
leave-one-out, at weight 0.5 over a similarity of 0.5, 3 nearest; 0.1-0.3 and floors
0.6-0.7 gained less."""

BANK_FLOOR = 0.5
"""The similarity a known question needs before it votes (see BANK_WEIGHT)."""

BANK_K = 3
"""How many of the nearest known questions vote (see BANK_WEIGHT)."""

EMERGENCY_LEAD = 0.15
"""Before the card ranker is trained: how far above the best hand-set score the cards of an
emergency's signs are put (card-018 for a stroke; app.agent.topics). With the ranker, they
are put at P = 1."""

WIDEN = 3
"""Candidates fetched per card kept, so a boosted card can rise into the top_k."""

CITE_FLOOR = 0.10
"""The cosine a card needs to be cited at all, unless it is about a name the question
gives: the answerability decision is the gate, but a card this far from the question is
never cited even when the decision says the cards cover it."""

# --- The decision (app.agent.decision, the decide node) -----------------------------------

LONG_QUESTION = 400
"""Characters: the answerability of a longer message (a story, then the question) is judged
on its end, where patients ask."""

SUGGESTIONS = 3
"""How many of the first candidates a not-covered answer may suggest."""

SUGGESTION_SHARE = 0.6
"""A suggested card's cosine must reach this share of MIN_SIMILARITY (settings)."""

# --- Follow-ups and parts of a question (app.agent.followup, app.agent.parts) -------------

FOLLOW_UP_WORDS = 6
"""A turn of at most this many words that names nothing of its own is read as a follow-up
of the previous one, like one that opens with "e ...", "mas ..." or points back ("isso")."""

ASKED_MIN_TERMS = 2
"""Content words the question must keep without its medicine names to be read that way: one
word left ("bombinha espaçador criança" -> "criança") says too little to choose by."""

MIN_TERMS = 1
"""Content words a part of a question needs to count as a part ("e com leite?" has one)."""

# --- Composition of the extractive answer (app.agent.compose) -----------------------------
# The thresholds were chosen on the tuning authors (python -m evaluation.sentence_scorer
# prints the sweep).

MAX_SENTENCES = 3
"""At most this many card sentences are quoted in an answer."""

EXTRA_MIN = 0.8
"""P(answers) a sentence of the answering cards needs to be added after the lead."""

EXTRA_RATIO = 0.7
"""... and its share of the lead's P(answers)."""

PART_MIN = 0.25
"""P(answers) the best sentence of a part needs for that part to be answered; below it, a
clause of its own is named as not covered."""

URGENT_BONUS = 0.3
"""In an emergency: added to the P(answers) of a line that says where to get help."""

LOW_MOOD_BONUS = 1.0
"""Told low mood: added to the P(answers) of a line on where to get help, so it leads."""

MISSED_BONUS = 1.0
"""A dose missed: added to the P(answers) of the lines on a missed dose, so one leads."""

# --- The language model (app.agent.generators.openai) -------------------------------------

REQUEST_MARGIN_S = 4.0
"""Seconds of REQUEST_DEADLINE_S kept for everything but the model (retrieval,
verification, the extractive fallback): the model's deadline is capped to the rest."""

BACKOFF_FIRST_S = 0.5
"""Wait before the first retry of a failed model call; it doubles with each attempt."""

BACKOFF_MAX_S = 4.0
"""The longest wait between two attempts of a model call."""

REPAIR_ECHO_CHARS = 4000
"""How much of a malformed model reply is sent back with the request to repair it."""
