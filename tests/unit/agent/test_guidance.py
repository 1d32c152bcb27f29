"""What counts as a stop/double/change question, and which "não pare" lines may be added to an
answer from a card about something else."""

from __future__ import annotations

import pytest

from app.agent.generators import need_of, portable_guidance, speaks_to_stop


@pytest.mark.parametrize(
    ("question", "need"),
    [
        ("posso parar o omeprazol?", "stop"),
        ("posso cortar o comprimido ao meio?", "change"),
        ("quero cortar o remédio, já melhorei", "stop"),
        # the food, not the medicine
        ("tomo varfarina e adoro couve, vou ter que cortar?", None),
        ("preciso cortar a salada por causa do marevan?", None),
        # a dose missed, not how to remember nor something left somewhere
        ("e se ela esquecer a da noite?", "missed"),
        ("esqueci o remédio da pressão ontem, e agora?", "missed"),
        ("caso ele esqueça a dose, faz o quê?", "missed"),
        ("tem algum truque pra não esquecer os remédios?", None),
        ("vivo esquecendo a bombinha, alguma ideia?", None),
        ("esqueci a caneta de insulina no carro ontem", None),
        ("esqueci de avisar o médico que tomo chá", None),
        # what someone said, forgotten, is no missed dose (f14); a dose forgotten after it is
        ("o farmacêutico explicou como guardar a insulina mas esqueci", None),
        ("esqueci o que a médica falou sobre o horário", None),
        ("a médica disse pra tomar de noite e ontem eu esqueci", "missed"),
    ],
)
def test_need_of(question: str, need: str | None) -> None:
    assert need_of(question) == need


@pytest.mark.parametrize(
    ("sentence", "portable"),
    [
        ("Não pare o remédio por conta própria.", True),
        ("Não suspenda o tratamento sem falar com o médico.", True),
        ("Tome o enalapril sempre no horário combinado e não pare por conta própria.", False),
        (
            "Se você engravidar ou estiver planejando engravidar, fale com o médico o quanto "
            "antes para trocar o tratamento, sem interromper o remédio por conta própria.",
            False,
        ),
        ("Se notar esses sintomas, não reduza nem suspenda o remédio sozinho.", False),
    ],
)
def test_only_guidance_that_names_nothing_travels_to_another_question(
    sentence: str, portable: bool
) -> None:
    assert portable_guidance(sentence) is portable


@pytest.mark.parametrize(
    ("sentence", "speaks"),
    [
        ("A retirada costuma ser gradual e orientada pelo médico.", True),
        (
            "Tome o antibiótico até o fim do período indicado, mesmo que se sinta melhor antes.",
            True,
        ),
        ("Quando chegar a hora de parar, o médico orienta uma redução gradual.", True),
        ("O omeprazol deve ser tomado em jejum.", False),
    ],
)
def test_a_cards_own_words_on_stopping(sentence: str, speaks: bool) -> None:
    assert speaks_to_stop(sentence) is speaks
