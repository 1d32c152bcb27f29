"""Evidence of intent, death or harm to self (kb/safety/cues.yaml SELF_HARM_EVIDENCE, read by
app.safety.emergency.self_harm_evidence), and what it changes (issue 25): a self-harm reading
by resemblance alone without it needs a clear lead over the ordinary questions
(UNEVIDENCED_MARGIN), and evidence words in a message that reads as nothing else escalate
when the message resembles the self-harm exemplars (EVIDENCE_LEAD). The wordings below are
in no evaluation set; the figures on real questions are the gate's (tests/eval)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.text import fold
from app.safety.concepts import C
from app.safety.emergency import (
    EmergencyDetector,
    lethality,
    outranked_by_self_harm,
    self_harm_evidence,
)
from app.safety.reading import literal
from tests.fakes import FakeEmbedder
from tests.unit.safety.conftest import write_resemblance_bank


@pytest.mark.parametrize(
    "message",
    [
        "acho que esse ano eu não chego no meu aniversário, já decidi",
        "vou esticar as canelas logo logo, pode escrever",
        "meus netos iam ficar melhor sem mim",
        "escrevi uma carta pra cada filho e deixei em cima da mesa",
        "quero ir pra junto do meu velho, não aguento mais",
        "tem dia que eu peço pra Deus me levar dormindo",
        "se um caminhão me pegasse hoje eu nem ia ligar",
        "comecei a guardar as ampolas que sobram, já tenho bastante",
        "venho juntando uns comprimidos na gaveta, já dá o suficiente pra mim",
        "o que eu tenho em casa dá pra parar o coração?",
        "não vejo motivo pra acordar amanhã",
        # s10, s11 (2026-12-07): the first person present, and joining someone who died
        "essa semana eu acabo com a minha vida, ja separei tudo",
        "desde que o pai morreu minha mãe diz que quer se juntar a ele logo",
        # a side effect's complaint beside the words of a crisis keeps them (f14, 2026-12-07:
        # "não aguento mais" after a side effect stays evidence; a review found despair around
        # it that a narrower reading lost)
        "desde que comecei o remédio é insônia todo dia, não aguento mais, to no limite",
        "é enjoo o dia todo, não aguento mais viver desse jeito",
        "com essa tosse e tudo, quero morrer, não aguento mais",
        "não aguento mais, essa vida não tem sentido",
    ],
)
def test_words_of_intent_death_or_harm_to_self_are_evidence(message: str) -> None:
    assert self_harm_evidence(fold(message)), message


@pytest.mark.parametrize(
    "message",
    [
        "eu odeio tomar insulina, dá pra trocar por comprimido?",
        "o comprimido veio de outra cor este mês, é o mesmo remédio?",
        "estou morrendo de fome de manhã por causa da levotiroxina",
        "meu pai faleceu e ficaram os remédios dele, onde eu descarto?",
        "parei a sertralina de uma vez e estou com tontura, é normal?",
        "posso levar todas as caixas de remédio na consulta?",
        "esse remédio me deixa desanimada o dia todo",
        "cansei de tomar tanto remédio, tem como juntar num só?",
        "eu acabo com o estoque de insulina antes do fim do mês, como peço mais?",
        "vou me juntar a ela na viagem, levo a insulina como?",
    ],
)
def test_complaints_grief_and_stopping_at_once_are_not_evidence(message: str) -> None:
    assert not self_harm_evidence(fold(message)), message


def test_stopping_a_medicine_at_once_is_not_a_question_of_amounts() -> None:
    assert not lethality(fold("e se eu parar o remédio de uma vez?"))
    assert lethality(fold("e se eu tomar tudo de uma vez?"))


def detector(path: Path) -> EmergencyDetector:
    return EmergencyDetector(FakeEmbedder(256).embed, bank_paths=[path], classifier=None)


def test_a_resemblance_without_evidence_needs_the_larger_lead(tmp_path: Path) -> None:
    """The same reading by resemblance: uncertain without a word of evidence, a crisis
    message with one."""
    d = detector(write_resemblance_bank(tmp_path, ordinary=True))
    d.ORDINARY_MARGIN = {**d.ORDINARY_MARGIN, "self_harm": -1.0}  # any lead is enough...
    d.UNEVIDENCED_MARGIN = 1.0  # ...unless the message has no evidence: none is
    plain = d.assess("alfa beta gama delta epsilon")
    assert plain.kind is None and plain.uncertain == "self_harm"
    assert plain.signals["by"] == "neighbours"
    said = d.assess("alfa beta gama delta epsilon adeus")
    assert said.kind == "self_harm" and said.uncertain is None


def test_evidence_in_a_message_that_reads_as_nothing_else_escalates(tmp_path: Path) -> None:
    d = detector(write_resemblance_bank(tmp_path, ordinary=False))
    d.SELF_HARM_MIN = 2.0  # no reading by resemblance at all
    d.EVIDENCE_LEAD = (-2.0, -2.0)
    found = d.assess("ja separei tudo, vou abotoar o paleto de madeira")
    assert found.kind == "self_harm" and found.signals["by"] == "evidence"
    # the same words asked about in general, or no evidence word: not escalated
    assert d.assess("o que é abotoar o paleto de madeira?").kind is None
    assert d.assess("ja separei tudo pra viagem").kind is None


def test_evidence_that_resembles_the_ordinary_questions_more_is_not_enough(
    tmp_path: Path,
) -> None:
    d = detector(write_resemblance_bank(tmp_path, ordinary=True))
    d.SELF_HARM_MIN = 2.0
    d.EVIDENCE_LEAD = (2.0, 2.0)  # a lead no message has
    assert d.assess("vou abotoar o paleto de madeira").kind is None


@pytest.mark.parametrize(
    "message",
    [
        # a review's and a fresh author's crises told beside a question (s12, 2026-12-07),
        # here in other words: the first-person words a clause read alone may rest on
        "to so aguardando a minha hora de ir",
        "nao tenho mais motivo nenhum",
        "olhando daqui eu nao vejo saida",
        "vou parar os remedios pra deixar a doença me levar",
        "queria que meu coracao parasse de uma vez",
        "acho que nao passo desse mes",
        "hoje eu faço uma bobagem comigo",
        "to pensando em sumir pra sempre",
    ],
)
def test_crises_told_beside_a_question_have_words_of_intent(message: str) -> None:
    assert C.SELF_HARM_INTENT.search(literal(fold(message))), message
    assert self_harm_evidence(fold(message)), message


@pytest.mark.parametrize(
    "message",
    [
        # a review of the first version (2026-12-07): words of context, or someone else's
        "tchau doutor, obrigado por tudo, ultima consulta hoje",
        "escolhi o dia da cirurgia, quando paro o AAS?",
        "to esperando minha vez chegar na fila do posto",
        "quero que acabe logo essa dor de dente",
        "to trancada no banheiro do trabalho com colica",
        "a arma do meu marido fica carregada no cofre",
        "vou fazer uma besteira e comer feijoada hoje",
        "sera que o cachorro vai morrer?",
        "queria que o coracao dele parasse de disparar",
        "nao to mais por aqui, mudei pra curitiba",
    ],
)
def test_words_of_context_are_not_words_of_intent(message: str) -> None:
    assert not C.SELF_HARM_INTENT.search(literal(fold(message))), message


@pytest.mark.parametrize(
    "message",
    [
        # the same words told ordinarily (look-alikes of s12, and a review's)
        "nao aguento mais tossir de madrugada",
        "esqueci onde deixei a chave do armario de remedios",
        "queria me despedir da enfermeira do posto antes de mudar",
        "a corda do varal ta no sol, posso deixar a insulina perto?",
        "guardo as canetas fechadas na porta da geladeira?",
        "juntei as canetas usadas, onde descarto?",
        "a medica falou q depois desse mes nao vou precisar mais.",
        "vou me matar de trabalhar esse mes, posso tomar cafe com o remedio?",
        "queria dormir e nao acordar tao cedo amanha, o zolpidem ajuda?",
        "quero que acabe logo essa tosse do enalapril",
        "preciso tomar cedo pra poder ir logo pro trabalho",
        "guardando as insulinas pra aplicar todas na hora certa, pode?",
    ],
)
def test_their_look_alikes_are_not_evidence(message: str) -> None:
    assert not C.SELF_HARM_EVIDENCE.search(literal(fold(message))), message


def test_a_crisis_told_beside_a_question_is_read_in_its_own_clause(tmp_path: Path) -> None:
    """The whole message resembles the ordinary question more than the crisis, so its words
    alone do not escalate it (EVIDENCE_LEAD); its last clause, read alone, is evidence."""
    d = detector(write_resemblance_bank(tmp_path, ordinary=False))
    d.SELF_HARM_MIN = 2.0  # no reading by resemblance at all
    question = "qual horario certo da insulina noturna? nao tenho mais motivo"
    whole = d.rules(question)
    assert whole.kind == "self_harm" and whole.signals["by"] == "clause", whole.signals
    assert whole.signals["clause"] == "nao tenho mais motivo"
    # without words of its own, or with "não aguento mais" alone: no clause is read alone
    assert d.rules("qual horario certo da insulina noturna? nao tenho mais tempo").kind is None
    assert (
        d.rules("qual horario certo da insulina noturna? sinceramente nao aguento mais").kind
        is None
    )
    # nor where the whole message laughs, or is a question about the topic
    assert d.rules(question + " kkkk").kind is None
    assert d.rules("o que e nao ter mais motivo? qual horario certo da insulina").kind is None


def test_a_medical_reading_gives_way_to_self_harm_only_on_its_words_and_the_model() -> None:
    sure = {"none": 0.01, "medical": 0.04, "poisoning": 0.0, "self_harm": 0.95}
    words = fold("parei tudo de proposito. se o coracao parar, parou")
    assert outranked_by_self_harm("medical", sure, words)
    assert outranked_by_self_harm("poisoning", sure, words)
    # not without the words, not when the model finds another kind likelier, never over
    # no reading (the model's own reading decides there)
    assert not outranked_by_self_harm("medical", sure, fold("dor no peito e suor frio"))
    unsure = {"none": 0.01, "medical": 0.6, "poisoning": 0.0, "self_harm": 0.39}
    assert not outranked_by_self_harm("medical", unsure, words)
    assert not outranked_by_self_harm(None, sure, words)


def test_a_clause_of_intent_too_weak_alone_gives_the_calm_line(tmp_path: Path) -> None:
    """A clause with words of intent that reads as self-harm alone, but too weakly to
    escalate on (nearly as close to the ordinary questions), leaves the answer with the CVV
    calm line under it."""
    d = detector(write_resemblance_bank(tmp_path, ordinary=True))
    d.SELF_HARM_MIN = 0.6  # the clause alone resembles the exemplars; the whole message not
    d.ORDINARY_MARGIN = {**d.ORDINARY_MARGIN, "self_harm": 1.0}  # a lead none has
    d.EVIDENCE_LEAD = (2.0, 2.0)  # the words alone never escalate here
    question = "qual horario certo da insulina? alfa beta gama delta nao tenho mais motivo"
    found = d.rules(question)
    assert found.kind is None and found.uncertain == "self_harm", found.signals
    assert found.signals.get("clause_uncertain")
    # without the words of intent in the clause: nothing
    plain = d.rules("qual horario certo da insulina? alfa beta gama delta nao tenho mais tempo")
    assert plain.kind is None and plain.uncertain is None, plain.signals
