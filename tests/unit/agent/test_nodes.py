"""Single graph nodes, called alone with a hand-made state."""

from __future__ import annotations

from app.agent.followup import follow_up_topic
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


def test_respond_adds_one_calm_line_to_an_uncertain_reading() -> None:
    out = respond({"answer": "Texto [cite:card-010]", "uncertain": "medical", "refused": False})
    assert out["answer"] == f"Texto [cite:card-010]\n\n{CALM_LINE['medical']}"
    assert "192" in CALM_LINE["medical"] and "188" in CALM_LINE["self_harm"]
    # an escalation already says where to get help: no second line under it
    both = respond({"answer": "Texto", "emergency": "medical", "uncertain": "medical"})
    assert CALM_LINE["medical"] not in both["answer"]
