from __future__ import annotations

import pytest

from app.agent.safety import detect_emergency


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Estou com uma dor no peito que vai para o braço", "medical"),
        ("meu pai está com a boca torta e fala enrolada", "medical"),
        ("minha mãe desmaiou depois do remédio", "medical"),
        ("a língua ficou inchada depois do enalapril", "medical"),
        ("Não consigo respirar direito", "medical"),
        ("penso em suicídio", "self_harm"),
        ("quero tomar a cartela inteira de uma vez", "self_harm"),
        ("não quero mais viver", "self_harm"),
        ("QUERO ME MATAR", "self_harm"),
    ],
)
def test_emergencies_detected(question: str, kind: str) -> None:
    assert detect_emergency(question) == kind


@pytest.mark.parametrize(
    "question",
    [
        "devo tomar a levotiroxina em jejum?",
        "quais são os sinais de infecção urinária?",
        "posso beber café com o remédio da pressão?",
        "como descartar remédio vencido?",
    ],
)
def test_ordinary_questions_are_not_emergencies(question: str) -> None:
    assert detect_emergency(question) is None
