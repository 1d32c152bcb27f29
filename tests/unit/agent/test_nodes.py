"""Single graph nodes, called alone with a hand-made state."""

from __future__ import annotations

import pytest

from app.agent.followup import elliptical, follow_up_topic, previous_cards
from app.agent.messages import CALM_LINE, ESCALATION
from app.agent.nodes import refuse, respond, route
from app.core.vocabulary import vocabulary


def test_route_follows_the_decision() -> None:
    assert route({"decision": {"covered": True}}) == "generate"  # type: ignore[typeddict-item]
    assert route({"decision": {"covered": False}}) == "refuse"  # type: ignore[typeddict-item]


def test_refuse_names_what_the_cards_do_not_cover() -> None:
    out = refuse({"uncovered_terms": ["ozempic"]})
    assert out["refused"] and out["citations"] == []
    assert "não têm informação sobre ozempic" in out["answer"]
    assert "farmacêutico" in out["answer"]


def test_respond_puts_the_escalation_first_and_keeps_the_answer() -> None:
    out = respond({"answer": "Texto [cite:card-005]", "emergency": "medical", "refused": False})
    assert out["answer"].startswith(ESCALATION["medical"]) and out["answer"].endswith(
        "[cite:card-005]"
    )
    only = respond({"answer": "A base não cobre", "emergency": "poisoning", "refused": True})
    assert only["answer"] == ESCALATION["poisoning"] and "0800 722 6001" in only["answer"]


def test_respond_says_which_topic_a_follow_up_assumed() -> None:
    out = respond({"answer": "Tome em jejum. [cite:card-001]", "topic": "a levotiroxina"})
    assert out["answer"] == "Sobre a levotiroxina: Tome em jejum. [cite:card-001]"


def test_a_follow_up_without_a_name_takes_the_previous_topic() -> None:
    history = [{"question": "devo tomar a levotiroxina em jejum?", "citations": ["card-001"]}]
    names, cards = follow_up_topic("e se eu tomar com café?", [], history, vocabulary())  # type: ignore[arg-type]
    assert [e.name for e in names] == ["levotiroxina"] and cards == ["card-001"]


def test_a_question_that_names_something_new_starts_fresh() -> None:
    history = [{"question": "devo tomar a levotiroxina em jejum?", "citations": ["card-001"]}]
    mentions = vocabulary().find("e o omeprazol?")
    assert follow_up_topic("e o omeprazol?", mentions, history, vocabulary()) == ([], [])  # type: ignore[arg-type]


def test_a_turn_that_named_only_a_condition_carries_the_medicine_before_it() -> None:
    history = [
        {"question": "tomo losartana de manhã", "citations": ["card-009"]},
        {"question": "e a pressão alta, tem cura?", "citations": ["card-013"]},
    ]
    names, cards = follow_up_topic("e se eu esquecer?", [], history, vocabulary())  # type: ignore[arg-type]
    assert [e.name for e in names] == ["losartana", "pressão alta"] and cards == ["card-013"]


def test_a_condition_the_previous_answer_was_not_about_is_not_carried() -> None:
    # the condition is incidental ("diabética"); the answer was about a heart attack's signs
    question = "minha mae 70 anos diabetica ta com suor frio e enjoo, pode ser infarto?"
    history = [{"question": question, "citations": ["card-018"]}]
    cards_about = {"diabetes": {"card-003", "card-008"}, "infarto": {"card-018"}}

    def about(entry):  # type: ignore[no-untyped-def]
        return cards_about.get(entry.name, set())

    asked = "levo ela de carro pro hospital?"
    plain, _ = follow_up_topic(asked, [], history, vocabulary())  # type: ignore[arg-type]
    assert [e.name for e in plain] == ["diabetes", "infarto"]
    names, cards = follow_up_topic(asked, [], history, vocabulary(), about)  # type: ignore[arg-type]
    assert [e.name for e in names] == ["infarto"] and cards == ["card-018"]
    # a medicine carries whatever the previous answer cited
    history = [{"question": "tomo losartana e sou diabética", "citations": ["card-009"]}]
    names, _ = follow_up_topic("e se eu esquecer?", [], history, vocabulary(), about)  # type: ignore[arg-type]
    assert [e.name for e in names] == ["losartana"]


def test_previous_cards_are_those_of_the_latest_turn_that_cited() -> None:
    assert previous_cards([]) == []
    history = [
        {"question": "a losartana é em jejum?", "citations": ["card-009"]},
        {"question": "e o sal light?", "citations": []},
    ]
    assert previous_cards(history) == ["card-009"]  # type: ignore[arg-type]


def test_respond_adds_one_calm_line_to_an_uncertain_reading() -> None:
    out = respond({"answer": "Texto [cite:card-010]", "uncertain": "medical", "refused": False})
    assert out["answer"] == f"Texto [cite:card-010]\n\n{CALM_LINE['medical']}"
    assert "192" in CALM_LINE["medical"] and "188" in CALM_LINE["self_harm"]
    # an escalation already says where to get help: no second line under it
    both = respond({"answer": "Texto", "emergency": "medical", "uncertain": "medical"})
    assert CALM_LINE["medical"] not in both["answer"]


@pytest.mark.parametrize(
    ("question", "judged"),
    [
        # an uncovered condition in the story only describes the situation
        (
            "minha mãe toma varfarina por causa de uma arritmia e adora couve. precisa cortar a"
            " couve?",
            {"varfarina"},
        ),
        # an uncovered medicine the story says is taken is what a nameless question is about
        ("uso tirzepatida toda semana. pode tomar junto com o café da manhã?", {"tirzepatida"}),
        ("meu pai toma donepezila faz um ano. ela dá sono?", {"donepezila"}),
        # unless a covered one is named too, or the question is about all the medicines
        ("tomo levotiroxina e ozempic. posso tomar com café?", {"levotiroxina"}),
        (
            "tenho gota e tomo alopurinol. alguém pode olhar todos os meus remédios juntos?",
            set(),
        ),
    ],
)
def test_the_names_the_decision_judges(question: str, judged: set[str]) -> None:
    from app.agent.decision import asked_mentions

    mentions = vocabulary().find(question)
    assert {m.entry.name for m in asked_mentions(question, mentions)} == judged


@pytest.mark.parametrize(
    ("earlier", "asked", "read"),
    [
        (
            "Minha mãe vai operar e toma metformina. Tem que parar antes?",
            "E o AAS dela?",
            "Minha mãe vai operar e toma AAS. Tem que parar antes?",
        ),
        ("posso tomar ibuprofeno pra dor nas costas?", "e dipirona, pode?", None),
        # named twice before: each is replaced, and nothing between them is lost
        (
            "Tomo metformina. Preciso parar a metformina antes da cirurgia?",
            "E o AAS?",
            "Tomo AAS. Preciso parar a AAS antes da cirurgia?",
        ),
    ],
)
def test_a_follow_up_that_only_names_a_medicine_asks_the_question_before(
    earlier: str, asked: str, read: str | None
) -> None:
    history = [{"question": earlier, "citations": []}]
    got = elliptical(asked, vocabulary().find(asked), history, vocabulary())  # type: ignore[arg-type]
    assert got == (read or "posso tomar dipirona pra dor nas costas?")


@pytest.mark.parametrize(
    ("earlier", "asked"),
    [
        # it asks something of its own
        ("devo tomar a levotiroxina em jejum?", "e o omeprazol, tem problema tomar junto?"),
        # "e com": both together, not the new one alone
        ("Losartana 50: manhã ou noite?", "E com Advil?"),
        # two medicines before: which one it stands for is not known
        ("uso Marevan, posso tomar ibuprofeno?", "E dipirona?"),
        # the question before named no medicine
        ("como guardo remédio em viagem?", "e o omeprazol?"),
    ],
)
def test_a_follow_up_is_not_read_as_the_question_before(earlier: str, asked: str) -> None:
    history = [{"question": earlier, "citations": []}]
    assert elliptical(asked, vocabulary().find(asked), history, vocabulary()) is None  # type: ignore[arg-type]
