"""Text addressed to the assistant rather than to a patient: instructions planted in a
question or in a card. Such sentences are never quoted and never kept in an answer."""

from __future__ import annotations

import re

from app.core.text import fold

_INJECTION_RE = re.compile(
    "|".join(
        [
            r"\b(ignor|desconsider|esquec)\w* (\w+ ){0,3}(regras|instrucoes|orientacoes|ordens)",
            r"\bignore (all |any |the )?(previous |prior |above )?(instructions|rules)",
            r"\b(assistente|chatbot|modelo de linguagem|language model)\b",
            r"\b(prompt|system prompt|mensagem de sistema|instrucoes do sistema)\b",
            r"\brevel\w* (\w+ ){0,2}(regras|instrucoes|configurac)",
            r"\[cite:",
            r"\b(voce agora e|aja como|finja (que|ser))\b",
            r"\b(responda|diga|fale) (ao|para o|pro) paciente\b",
            r"\bnova ordem\b",
        ]
    )
)


def looks_like_injection(text: str) -> bool:
    return bool(_INJECTION_RE.search(fold(text)))
