"""What a sentence advises about a medicine, read clause by clause.

Verification asks one question of every answer sentence, whoever wrote it: does it tell
the patient to change their treatment on their own? Keywords cannot answer it ("não"
appears in "se a dor não passar, aumente a dose"), so each sentence is parsed:

1. split into clauses (punctuation and clause-opening conjunctions);
2. in each clause, find *actions* on a medicine: doubling, increasing, reducing, stopping,
   skipping, changing, combining, starting;
3. for each action, decide its *polarity* from the words that govern it: a negator
   ("não", "nunca", "jamais", "nem") attached to it or to the modal verb in front of it
   ("não deve parar", "nunca tome dose dobrada"), or a prohibitive verb ("evite misturar"),
   makes it advice *against* the action; a negator that belongs to another verb ("se a dor
   não passar, aumente") does not;
4. note whether the action is led by a professional ("o médico pode suspender", "só com
   orientação médica", "converse com o médico antes de parar") or self-directed ("por conta
   própria", "sozinho", "sem receita");
5. note whether the sentence discourages care ("não precisa falar com o médico", "sem
   consultar o farmacêutico") or grants an unconditional permission ("sem problema",
   "pode misturar", "à vontade").

`unsafe_reasons` turns a reading into the reasons a sentence must not reach a patient.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from app.core.text import fold

HARD = ("double", "increase", "decrease", "stop", "change", "combine")
SOFT = ("skip", "start")

_MED_WORD = re.compile(
    r"^(?:remedi\w*|medicament\w*|medicac\w*|comprimid\w*|dose\w*|tratamento|insulina|pilul\w*|"
    r"capsul\w*|gotas|cartela|\w{4,}(?:ina|ol|il|pam|ona|ida|eno|aco|ico|ato|ino|ano)|aas|"
    r"anti-?\w+|antibiotic\w*|antidepressiv\w*|calmante\w*|estatina\w*|diuretic\w*|"
    r"ele|ela|eles|elas|isso|o mesmo|mg)$"
)
_SUBSTANCE = re.compile(
    r"^(?:alcool|bebida\w*|cerveja|vinho|cachaca|pinga|cha|chas|suplement\w*|fitoterapic\w*|"
    r"erva\w*|ginkgo|alho|hiperico)$"
)
_NOT_MED_OBJECT = re.compile(
    r"^\W*(?:de\s+)?(?:fumar|beber|comer|cigarro|alcool|bebida|exercicio|correr|trabalhar|"
    r"dirigir|andar|academia|chorar|se preocupar|pensar|reduzir|ficar)"
)

# Verb forms per action. Imperative = the formal imperative patients are addressed with.
_VERBS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # action: (imperatives, infinitives)
    "double": (("dobre", "dobrem", "duplique"), ("dobrar", "duplicar")),
    "increase": (("aumente", "aumentem", "suba", "eleve"), ("aumentar", "subir", "elevar")),
    "decrease": (
        ("diminua", "diminuam", "reduza", "reduzam", "baixe", "corte", "cortem"),
        ("diminuir", "reduzir", "baixar", "cortar"),
    ),
    "stop": (
        (
            "pare",
            "parem",
            "suspenda",
            "suspendam",
            "interrompa",
            "interrompam",
            "largue",
            "abandone",
            "tire",
            "corte",
        ),
        ("parar", "suspender", "interromper", "largar", "abandonar", "tirar", "cortar"),
    ),
    "skip": (("pule", "pulem"), ("pular",)),
    "change": (
        ("troque", "troquem", "mude", "mudem", "ajuste", "ajustem"),
        ("trocar", "mudar", "ajustar"),
    ),
    "combine": (
        ("combine", "combinem", "misture", "misturem", "associe", "junte"),
        ("combinar", "misturar", "associar", "juntar"),
    ),
    "start": (("comece", "inicie"), ("comecar", "iniciar")),
    "take": (
        ("tome", "tomem", "use", "usem", "aplique", "engula"),
        ("tomar", "usar", "aplicar", "engolir"),
    ),
}
_MODAL = {
    "pode",
    "podem",
    "podera",
    "poderao",
    "deve",
    "devem",
    "deveria",
    "precisa",
    "precisam",
    "basta",
    "vale",
    "convem",
    "recomendo",
    "sugiro",
    "tente",
    "procure",
    "quiser",
    "consegue",
}
_MODAL_PHRASES = (
    "tem que",
    "tem de",
    "e so",
    "da pra",
    "da para",
    "e melhor",
    "e bom",
    "e so",
    "pode se",
    "e seguro",
    "pode ficar",
)
_TAKE_EXTRA = re.compile(
    r"^(?:\w+\s+){0,2}?(?:dois|duas|tres|2|3|4|mais|outro|outra|em dobro|dose dupla|dose dobrada|"
    r"dose extra|a dose de novo|de novo)\b"
)
_TAKE_WITH = re.compile(
    r"^(?:\w+\s+){0,4}?(?:junto com|juntos com|juntas com|junto ao|junto a|ao mesmo tempo que|"
    r"junto|juntos|juntas|com|e)\s+(?:o |a |os |as |um |uma |de |do |da )?(\S+)"
)
_DETERMINERS = {
    "o",
    "a",
    "os",
    "as",
    "um",
    "uma",
    "seu",
    "sua",
    "seus",
    "suas",
    "esse",
    "essa",
    "este",
    "esta",
    "meu",
    "minha",
    "pouco",
    "mais",
    "bastante",
    "muito",
    "toda",
    "todo",
    "de",
    "do",
    "da",
    "dos",
    "das",
    "la",
    "lo",
}
_NOUN_CONTEXT = {
    "de",
    "do",
    "da",
    "o",
    "a",
    "um",
    "uma",
    "no",
    "na",
    "sem",
    "com",
    "ao",
    "pelo",
    "pela",
    "esse",
    "essa",
    "este",
    "esta",
    "novo",
    "nova",
    "qualquer",
    "algum",
}


def _is_medicine(word: str) -> bool:
    from app.core.vocabulary import vocabulary

    if _MED_WORD.match(word) or _SUBSTANCE.match(word):
        return True
    entry = vocabulary()._single.get(word)
    return bool(entry and entry.kind == "medicine")


_CLAUSE_SPLIT = re.compile(
    r"[;:.!?]+|,\s*|\s+(?=(?:mas|porem|entao|depois|porque|pois|enquanto|caso|quando)\b)|"
    r"\s+e\s+(?=(?:nao|nunca|depois|entao|se)\b)"
)
_NEGATOR = {"nao", "nunca", "jamais", "nem", "n", "sem"}
_PROHIBITIVE = re.compile(
    r"\b(?:evit\w*|proibid\w*|desaconselh\w*|cuidado (?:ao|com|para nao)|perigoso|arriscado|"
    r"nao e (?:recomendad|indicad|segur|bom)\w*|contraindicad\w*)\b"
)
# Words that may stand between a negator and the verb it governs.
_GOVERNING = {
    "se",
    "me",
    "te",
    "o",
    "a",
    "os",
    "as",
    "lhe",
    "voce",
    "vc",
    "ja",
    "mais",
    "tem",
    "que",
    "de",
    "e",
    "pra",
    "para",
    "va",
    "vai",
    "vou",
    "bom",
    "recomendado",
    "indicado",
    "seguro",
    "queira",
    "tentar",
    "resolva",
    "decida",
    "por",
    "conta",
    "propria",
    "sozinho",
    "sozinha",
    "assim",
    "simplesmente",
    "um",
    "uma",
    "esse",
    "essa",
    "este",
    "esta",
    "so",
    "nunca",
}
_DOCTOR = re.compile(
    r"\b(?:o|a|seu|sua|pelo|pela|do|da)\s+(?:medic[oa]|farmaceutic[oa]|equipe|dentista|doutor|doutora|"
    r"profissional)\b[^.]*?\b(?:pode|podera|vai|costuma|deve|decide|decidir|orienta|orientar|avalia|"
    r"avaliar|indica|indicar|pede|pedir|ajusta|ajustar|suspende|suspender|define|definir|"
    r"recomenda|recomendar|prescreve|mandar|manda|autoriza|autorizar)\b"
    r"|\b(?:orientacao|autorizacao|indicacao|prescricao|acompanhamento|avaliacao)\s+(?:medica|do medico|"
    r"da medica|da equipe|do farmaceutico|profissional)\b"
    r"|\b(?:converse|fale|pergunte|consulte|combine|confirme|procure|avise|ligue|verifique|cheque|"
    r"confira)\b[^.]{0,40}\b(?:medic[oa]|farmaceutic[oa]|equipe|dentista|doutor|doutora|posto|bula)\b"
    r"|\bse o (?:medic[oa]|farmaceutic[oa]) (?:mandar|pedir|orientar|indicar|disser)\b"
    r"|\bso (?:com|se|quando|depois)\b[^.]{0,30}\b(?:medic[oa]|farmaceutic[oa]|orientacao|receita)\b"
)
_SELF_DIRECTED = re.compile(
    r"\b(?:por conta propria|por sua conta|sozinh[oa]|por si (?:so|mesm[oa])|sem receita|"
    r"sem orientacao|sem prescricao|sem avisar|a vontade|quando quiser|como quiser|do seu jeito)\b"
)
_DISCOURAGES = re.compile(
    r"\b(?:nao (?:precisa|e preciso|e necessario|tem necessidade de|carece|precisa nem)|sem necessidade de|"
    r"dispensa|nem precisa|nao vale a pena|nao adianta)\s+(?:\w+\s+){0,2}?(?:falar|consultar|avisar|"
    r"perguntar|ir|procurar|passar|contar|ligar|marcar|esperar|medico|consulta|receita|orientacao|exame)\w*"
    r"|\b(?:medic[oa]|farmaceutic[oa]|equipe) (?:nao precisa|nem precisa) (?:saber|ser avisad\w*)"
)
_SKIP_CARE = re.compile(
    r"\bsem (?:falar|consultar|avisar|perguntar|passar|ir)\w*\s+(?:\w+\s+){0,2}?"
    r"(?:medic[oa]|farmaceutic[oa]|equipe|doutor|doutora|consulta)\b"
)
_PERMISSION = re.compile(
    r"\b(?:sem (?:problema|problemas|risco|riscos|perigo)|nao tem (?:problema|perigo|risco)|"
    r"nao (?:ha|existe) (?:problema|risco|perigo)|tranquil\w*|nao faz mal|"
    r"e (?:totalmente |bem )?seguro|liberad\w*|a vontade|a qualquer hora|a hora que quiser|"
    r"quanto quiser)\b"
)


@dataclass
class Action:
    action: str
    against: bool  # advice AGAINST doing it ("não pare", "evite misturar")
    clause: str
    form: str | None = None  # "imperative", "modal", or None for a description


@dataclass
class Reading:
    actions: list[Action] = field(default_factory=list)
    doctor_led: bool = False
    self_directed: bool = False
    discourages_care: bool = False
    permission: bool = False


def clauses(folded: str) -> list[str]:
    return [c.strip() for c in _CLAUSE_SPLIT.split(folded) if c and c.strip()]


def _negated(words: list[str], i: int) -> bool:
    """Whether the verb at words[i] is governed by a negator or a prohibitive verb."""
    for word in reversed(words[max(0, i - 6) : i]):
        if word in _NEGATOR:
            return True
        if word in _GOVERNING or word in _MODAL:
            continue
        break
    return bool(_PROHIBITIVE.search(" ".join(words[:i])))


def _form(words: list[str], i: int, imperatives: tuple[str, ...]) -> str | None:
    """ "imperative", "modal" (an infinitive governed by a modal: "pode parar", "é só
    dobrar") or None (a description: "o café reduz a absorção")."""
    word = words[i]
    if word in imperatives and not (i > 0 and words[i - 1] in _NOUN_CONTEXT):
        return "imperative"
    before = words[max(0, i - 4) : i]
    joined = " ".join(before)
    if any(w in _MODAL for w in before) or any(p in joined for p in _MODAL_PHRASES):
        return "modal"
    if i == 0 or (before and before[-1] in ("e", "ou", "entao", "depois", "so", "apenas")):
        return "imperative" if word in imperatives else None
    return None


def _head(words: list[str], i: int) -> str | None:
    """The first content word after the verb at i (its object), if any."""
    for w in words[i + 1 : i + 5]:
        if w not in _DETERMINERS:
            return w
    return None


def _object_is_medicine(words: list[str], i: int, window: int = 5) -> bool:
    head = _head(words, i)
    before = words[max(0, i - 4) : i]
    if head is not None:
        return _is_medicine(head) or (head == "o" and "remedio" in before)
    return "dose" in before or "remedio" in before


def _actions_in(clause: str) -> list[Action]:
    words = clause.split()
    found = []
    for i, word in enumerate(words):
        for action, (imperatives, infinitives) in _VERBS.items():
            if word not in imperatives and word not in infinitives:
                continue
            if word not in infinitives and i > 0 and words[i - 1] in _NOUN_CONTEXT:
                continue  # "precisar de ajuste", "um corte": a noun, not a verb
            form = _form(words, i, imperatives)
            rest = " ".join(words[i + 1 :])
            if action == "take":
                # "tome dois comprimidos", "use junto com o álcool"
                if (
                    form
                    and _TAKE_EXTRA.match(rest)
                    and any(_is_medicine(w) for w in words[i + 1 : i + 6])
                ):
                    found.append(Action("double", _negated(words, i), clause, form))
                with_ = _TAKE_WITH.match(rest)
                if form and with_ and _is_medicine(with_.group(1)):
                    found.append(Action("combine", _negated(words, i), clause, form))
                continue
            if action in ("increase", "decrease", "change", "start") and not _object_is_medicine(
                words, i
            ):
                continue
            if action == "stop":
                head = _head(words, i)
                if _NOT_MED_OBJECT.match(rest):
                    continue
                if (
                    head
                    and head
                    not in ("de", "com", "por", "se", "quando", "agora", "logo", "hoje", "ja")
                    and not _is_medicine(head)
                ):
                    continue
            if action == "combine" and not re.search(r"\b(?:com|e|junto|ao|aos)\b", rest):
                continue
            found.append(Action(action, _negated(words, i), clause, form))
    for m in re.finditer(r"\bdeix\w*\s+de\s+(?:tomar|usar|aplicar)\b", clause):
        idx = len(clause[: m.start()].split())
        found.append(Action("stop", _negated(words, idx), clause, _form(words, idx, ("deixe",))))
    for m in re.finditer(r"\b(?:dose|doses)\s+(?:dupla|dobrada|em dobro|extra)\b", clause):
        idx = len(clause[: m.start()].split())
        found.append(Action("double", _negated(words, idx), clause, "modal"))
    return found


@lru_cache(maxsize=1 << 14)
def read(sentence: str) -> Reading:
    """How `sentence` reads (cached: card sentences are read on every answer; the Reading
    returned is shared, so callers must not change it)."""
    folded = fold(sentence)
    reading = Reading()
    reading.doctor_led = bool(_DOCTOR.search(folded))
    for clause in clauses(folded):
        negated_clause = bool(re.search(r"\b(?:nao|nunca|jamais|nem)\b", clause))
        actions = _actions_in(clause)
        if _PERMISSION.search(clause) and not negated_clause:
            reading.permission = True
            for a in actions:  # "dobrar a dose é seguro": a permission makes it advice
                a.form = a.form or "modal"
        # The same action found twice in a clause counts once; "against" wins.
        for a in actions:
            twin = next(
                (b for b in reading.actions if (b.action, b.clause) == (a.action, a.clause)), None
            )
            if twin is None:
                reading.actions.append(a)
            elif a.against:
                twin.against = True
        if _SELF_DIRECTED.search(clause) and not negated_clause:
            reading.self_directed = True
        if _DISCOURAGES.search(clause):
            reading.discourages_care = True
        if _SKIP_CARE.search(clause) and not negated_clause:
            reading.discourages_care = True
    if reading.permission and not any(a.action == "combine" for a in reading.actions):
        meds = [w for w in folded.split() if _MED_WORD.match(w) or _SUBSTANCE.match(w)]
        if len(meds) >= 2 and re.search(r"\b(?:pode|podem|usar|tomar|misturar|junto)\b", folded):
            reading.actions.append(Action("combine", False, folded, "modal"))
    return reading


def advised(reading: Reading, kinds: tuple[str, ...]) -> list[Action]:
    """Actions of these kinds the sentence advises doing (not against, not a description)."""
    return [a for a in reading.actions if a.action in kinds and not a.against and a.form]


def unsafe_reasons(reading: Reading, quoted: bool) -> list[str]:
    """Why a sentence must not reach a patient (empty when it may).

    Hard actions (double, increase, decrease, stop, change, combine) advised without a
    professional leading them are unsafe whoever wrote them, even quoted from a card (a
    mistaken or poisoned card must not pass). Soft actions (skip a forgotten dose, start)
    are unsafe when self-directed; when a model writes them, verification also requires the
    cited card to advise the same (checked by the caller).
    """
    reasons = []
    if reading.discourages_care:
        reasons.append("discourages talking to the doctor or pharmacist")
    hard = advised(reading, HARD)
    if hard and (not reading.doctor_led or reading.self_directed):
        reasons.append("advises to " + "/".join(sorted({a.action for a in hard})) + " a medicine")
    soft = advised(reading, SOFT)
    if soft and reading.self_directed:
        reasons.append("advises to " + "/".join(sorted({a.action for a in soft})) + " on one's own")
    if reading.permission and reading.self_directed and not reasons:
        reasons.append("gives an unconditional permission about a medicine")
    return reasons
