"""Personal data is cut out of a question before anything else sees it; medical content
stays."""

from __future__ import annotations

import pytest

from app.safety.pii import clean_question


@pytest.mark.parametrize(
    ("question", "personal"),
    [
        ("sou José Carlos Pereira, posso tomar losartana à noite?", ["José", "Carlos", "Pereira"]),
        ("me chamo maria aparecida dos santos e tomo metformina", ["maria", "aparecida", "santos"]),
        ("meu nome é Tereza, a insulina vai na geladeira?", ["Tereza"]),
        ("minha mãe, a Maria das Graças, toma varfarina", ["Maria", "Graças"]),
        ("meu filho Pedro engoliu uma pastilha", ["Pedro"]),
        ("dona Cida tem 80 anos e toma 8 remédios", ["Cida"]),
        ("aqui é a Joelma, cuidadora do seu Antônio", ["Joelma", "Antônio"]),
        ("meu CPF é 529.982.247-25, onde pego remédio de graça?", ["529.982.247-25"]),
        ("o cpf dela é 52998224725", ["52998224725"]),
        ("cartão do SUS 898 0012 3456 7890, tomo enalapril", ["898 0012 3456 7890"]),
        ("cns 700000000000005 e tomo AAS", ["700000000000005"]),
        ("RG 12.345.678-9, posso beber com antibiótico?", ["12.345.678-9"]),
        ("nasci em 12/03/1958 e tomo estatina", ["12/03/1958"]),
        ("nascida em 2 de fevereiro de 1949, uso insulina", ["2 de fevereiro de 1949"]),
        ("meu telefone (11) 98765-4321, a metformina dá diarreia?", ["98765-4321"]),
        ("whatsapp +55 21 99876 5432 me responde", ["99876 5432"]),
        ("meu email é joao.silva@gmail.com, e o omeprazol?", ["joao.silva@gmail.com"]),
        ("CEP 01234-567, onde descarto remédio?", ["01234-567"]),
        (
            "moro na Rua das Flores, 123, apto 45, onde descarto remédio?",
            ["Flores", "123", "apto 45"],
        ),
        ("prontuário 5582131 no posto, tomo losartana", ["5582131"]),
    ],
)
def test_personal_data_is_removed(question: str, personal: list[str]) -> None:
    cleaned = clean_question(question)
    for item in personal:
        assert item not in cleaned, cleaned


@pytest.mark.parametrize(
    "question",
    [
        "sou diabética e tomo metformina, posso beber cerveja?",
        "tomei 2 comprimidos de 500 mg e a pressão está 22 por 14",
        "tomo 2 comprimidos às 8h e às 20h",
        "minha mãe tem 80 anos e toma levotiroxina",
        "preciso de socorro, minha mãe desmaiou",
        "a glicose deu 45 agora",
    ],
)
def test_medical_content_is_kept(question: str) -> None:
    assert clean_question(question) == question


def test_markup_is_removed() -> None:
    assert clean_question("<img src=x onerror=alert(1)> como guardar insulina?") == (
        "como guardar insulina?"
    )


def test_leftover_introducers_are_tidied() -> None:
    assert clean_question("Sou o João, e-mail joao@example.com. A metformina dá diarreia?") == (
        "A metformina dá diarreia?"
    )


def test_a_question_that_is_only_personal_data_never_comes_back_whole() -> None:
    assert "529.982.247-25" not in clean_question("529.982.247-25")
