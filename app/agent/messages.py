"""What the agent says to the patient on its own: the refusal, what a not-covered answer
names, the escalations and calm lines, and the words around a follow-up's or a partial
answer.

Detection lives in app.safety (emergencies, personal data, advice, injections); the
language model's rules live in app.agent.prompts.
"""

from __future__ import annotations

from app.safety.rules import rules

REFUSAL = (
    "A base de conhecimento não cobre essa pergunta. Para dúvidas sobre o seu tratamento, "
    "converse com o seu médico ou farmacêutico."
)


def not_covered(terms: list[str]) -> str:
    """The answer to a question the cards do not cover: says what, points to the team."""
    if not terms:
        return REFUSAL
    named = terms[0] if len(terms) == 1 else ", ".join(terms[:-1]) + " e " + terms[-1]
    return (
        f"Os cartões não têm informação sobre {named}. Para essa dúvida, converse com o seu "
        "farmacêutico ou médico: eles podem orientar com segurança."
    )


# Each kind's texts are declared once, in kb/safety/kinds.yaml (app.safety.rules).
ESCALATION = {name: kind.escalation for name, kind in rules().kinds.items()}
"""What the patient reads first when a reading escalates."""


def topic_prefix(topic: str) -> str:
    """How an answer to a follow-up says which topic it assumed ("Sobre a levotiroxina: ").
    `topic` carries its article ("a levotiroxina", "o AAS")."""
    return f"Sobre {topic}: "


UNCOVERED_MARK = "da pergunta os cartões não respondem:"
"""The words of `uncovered_part` that the evaluation looks for in an answer."""


def uncovered_part(parts: list[str]) -> str:
    """What an answer says of the parts of a question no card answers, in the patient's
    own words ("e abacate, mexe com o remédio?")."""
    quoted = " e ".join(f"“{p.strip()}”" for p in parts)
    noun = "Essa parte" if len(parts) == 1 else "Essas partes"
    return (
        f"{noun} {UNCOVERED_MARK} {quoted}. Para isso, converse com o seu farmacêutico ou médico."
    )


# One calm line after an answer whose emergency reading was too weak to escalate on (issue
# 25): it never replaces the answer.
CALM_LINE = {name: kind.calm_line for name, kind in rules().kinds.items()}
