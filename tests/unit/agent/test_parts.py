"""The parts of a question (app.agent.parts.clauses)."""

from __future__ import annotations

import pytest

from app.agent.parts import clauses


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "posso tomar a levotiroxina com café? e com leite?",
            ["posso tomar a levotiroxina com café?", "e com leite?"],
        ),
        (
            "Uso omeprazol: qual o horário ideal para tomá-lo, e ele interfere na minha "
            "levotiroxina?",
            [
                "Uso omeprazol: qual o horário ideal para tomá-lo",
                "e ele interfere na minha levotiroxina?",
            ],
        ),
        # a story before the question, or a statement after it, is not a part
        (
            "minha mãe toma varfarina e adora couve. precisa cortar a couve?",
            ["minha mãe toma varfarina e adora couve. precisa cortar a couve?"],
        ),
        ("Posso usar sal light no lugar do sal comum? Tomo enalapril.", None),
        ("aparelho de pressao de pulso é bom? é bem mais barato", None),
        ("tomo aas e sinvastatina, qual horario de cada um?", None),
    ],
)
def test_a_message_is_split_into_the_questions_it_asks(
    question: str, parts: list[str] | None
) -> None:
    assert clauses(question) == (parts or [question])
