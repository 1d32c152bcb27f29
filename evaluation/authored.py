"""Sentence-level question sets by author (issue 24): what the patient reads, measured.

Each author wrote, seeing only the cards, questions with the card sentences that answer
them, by sentence id (`card-009:04` is the card's 4th sentence, app.agent.text.sentences).
A question has one part or several (`two_part`, `partly_covered`), each answered by a card
or `uncovered`; conversations have follow-up turns.

Sets live in two places and never both:
- kb/questions/<author>.yaml: the tuning authors. They are product data too (the
  "example questions" of the sentences they answer) and train the sentence scorer;
- tests/eval/authors/<author>.yaml: the held-out authors and the fresh sets; never in kb/,
  never tuned on.

`python -m evaluation.authored [--set FILE ...]` runs the production agent over the sets and
prints, per author: one-point questions whose answer opens with / holds an answering
sentence, two-part questions with every part answered, follow-ups, card-level figures.
`--sheet` writes the answers as a patient reads them, for a grader who has only the cards.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import tempfile
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from app.agent.messages import UNCOVERED_MARK
from app.agent.text import sentences
from app.core.yamlfile import read_yaml
from evaluation.golden import ROOT

KB_QUESTIONS = ROOT / "kb" / "questions"
HELD_OUT = ROOT / "tests" / "eval" / "authors"
CARDS = ROOT / "kb" / "cards"

Kind = Literal[
    "one_point", "complaint", "story", "two_part", "partly_covered", "out_of_scope", "conversation"
]


@lru_cache(maxsize=1)
def card_sentences() -> dict[str, str]:
    """`card-XXX:NN` -> sentence text, from the cards under kb/cards."""
    out: dict[str, str] = {}
    for path in sorted(CARDS.glob("card-*.md")):
        body = path.read_text(encoding="utf-8").split("---", 2)[2]
        for n, sentence in enumerate(sentences(body.strip()), start=1):
            out[f"{path.stem}:{n:02d}"] = sentence
    return out


class Part(BaseModel):
    model_config = ConfigDict(extra="forbid")

    card: str | None = None
    answers: list[str] = []
    related: list[str] = []
    also: list[str] = []
    uncovered: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Part:
        if (self.card is None) == (self.uncovered is None):
            raise ValueError("a part is either `card` (with answers) or `uncovered`")
        if self.card and not self.answers:
            raise ValueError(f"part of {self.card} needs answers")
        known = card_sentences()
        for sid in [*self.answers, *self.related, *self.also]:
            if sid not in known:
                raise ValueError(f"unknown sentence id {sid}")
        for sid in [*self.answers, *self.related]:
            if self.card and not sid.startswith(self.card + ":"):
                raise ValueError(f"{sid} is not a sentence of {self.card}")
        return self

    @property
    def covered(self) -> bool:
        return self.card is not None

    @property
    def cards(self) -> list[str]:
        """The cards that answer it: its own, then those of `also`."""
        if not self.card:
            return []
        return list(dict.fromkeys([self.card, *(s.split(":")[0] for s in self.also)]))

    @property
    def gold(self) -> list[str]:
        return [*self.answers, *self.also]


Emergency = Literal["medical", "poisoning", "self_harm"]


class TurnItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str
    follow_up: bool = False
    parts: list[Part]
    # the message tells of an emergency now (a stroke's signs, a child who swallowed pills):
    # its escalation is expected, so it is not one of the ordinary questions escalated
    emergency: Emergency | None = None


class Item(BaseModel):
    """A question, or a conversation (kind `conversation`, with turns)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    voice: str = ""
    kind: Kind
    question: str | None = None
    parts: list[Part] = []
    turns: list[TurnItem] = []
    emergency: Emergency | None = None  # as TurnItem.emergency, for a single question
    author: str = ""
    split: Literal["tune", "test"] = "tune"

    @model_validator(mode="after")
    def _consistent(self) -> Item:
        if self.kind == "conversation":
            if len(self.turns) < 2 or self.question is not None:
                raise ValueError(f"{self.id}: a conversation has 2+ turns and no question")
        elif not self.question or not self.parts or self.turns:
            raise ValueError(f"{self.id}: a question needs `question` and `parts`")
        if self.kind == "out_of_scope" and any(p.covered for p in self.parts):
            raise ValueError(f"{self.id}: out_of_scope has only uncovered parts")
        if self.kind in ("one_point", "complaint", "story") and (
            len(self.parts) != 1 or not self.parts[0].covered
        ):
            raise ValueError(f"{self.id}: {self.kind} has one covered part")
        return self

    def as_turns(self) -> list[TurnItem]:
        if self.kind == "conversation":
            return self.turns
        return [TurnItem(question=self.question or "", parts=self.parts, emergency=self.emergency)]


def load_set(path: Path, split: Literal["tune", "test"]) -> list[Item]:
    raw = read_yaml(path) or []
    author = path.stem
    items = []
    for entry in raw:
        try:
            items.append(Item.model_validate({**entry, "author": author, "split": split}))
        except ValueError as exc:
            raise ValueError(f"{path}: {entry.get('id', '?')}: {exc}") from exc
    ids = [i.id for i in items]
    if len(ids) != len(set(ids)):
        raise ValueError(f"{path}: duplicate ids")
    return items


def load_authors(tune_dir: Path = KB_QUESTIONS, test_dir: Path = HELD_OUT) -> dict[str, list[Item]]:
    """Every author's set, by author: kb/questions (tune) and tests/eval/authors (test)."""
    out: dict[str, list[Item]] = {}
    dirs: tuple[tuple[Path, Literal["tune", "test"]], ...] = (
        (tune_dir, "tune"),
        (test_dir, "test"),
    )
    for directory, split in dirs:
        for path in sorted(directory.glob("*.yaml")):
            if path.stem in out:
                raise ValueError(f"author {path.stem} is in both {tune_dir} and {test_dir}")
            out[path.stem] = load_set(path, split)
    return out


# --- asking -----------------------------------------------------------------------------


def _norm(text: str) -> str:
    return " ".join(text.split())


def quoted(answer: str) -> list[tuple[str, str]]:
    from evaluation.quality import quoted_lines

    return quoted_lines(answer)


def answers_part(line: tuple[str, str], part: Part) -> bool:
    """Whether a quoted line (text, card) is one of the part's answering sentences."""
    text, card = line
    known = card_sentences()
    for sid in part.gold:
        if sid.split(":")[0] == card and _norm(known[sid]) in text:
            return True
    return False


def lead_lines(lines: list[tuple[str, str]]) -> int:
    """How many of the first quoted lines open the answer: the first, and each next one
    that cannot be read without a line before it (kb/sentences.yaml `needs`), as a grader
    reads "the first two when the first sets it up"."""
    from app.agent.sentence_labels import sentence_labels

    labels = sentence_labels()
    by_text = {_norm(t): sid for sid, t in card_sentences().items()}
    sids = [by_text.get(_norm(text)) for text, _ in lines]
    n = 1 if lines else 0
    while n < len(lines):
        sid = sids[n]
        label = labels.get(sid, lines[n][0]) if sid else None
        needs = label.needs if label is not None else None
        if needs is None or sid is None:
            break
        # what it needs is quoted before it, or a line between that and it is
        if needs not in sids[:n] and not any(
            s and s.split(":")[0] == needs.split(":")[0] and needs <= s < sid for s in sids[:n]
        ):
            break
        n += 1
    return n


def ask_items(agent: Any, items: Iterable[Item]) -> list[dict[str, Any]]:
    """One row per turn, with what the patient read."""
    rows = []
    for item in items:
        history: list[dict[str, Any]] = []
        for n, turn in enumerate(item.as_turns(), start=1):
            sent = [{"question": h["question"], "citations": h["citations"]} for h in history]
            state = agent.ask(turn.question, top_k=5, history=sent or None)
            citations = list(state.get("citations", []))
            lines = quoted(state["answer"])
            rows.append(
                {
                    "id": item.id if item.kind != "conversation" else f"{item.id}#{n}",
                    "item": item.id,
                    "turn": n,
                    "author": item.author,
                    "split": item.split,
                    "kind": item.kind,
                    "voice": item.voice,
                    "follow_up": turn.follow_up,
                    "question": turn.question,
                    "history": [[h["question"], h["answer"]] for h in history],
                    "answer": state["answer"],
                    "refused": bool(state.get("refused")),
                    "emergency": state.get("emergency"),
                    "expect_emergency": turn.emergency,
                    "citations": citations,
                    "ranked": [c.id for c in state.get("candidates", [])],
                    "lines": lines,
                    "parts": [p.model_dump() for p in turn.parts],
                }
            )
            history.append(
                {"question": turn.question, "citations": citations, "answer": state["answer"]}
            )
    return rows


def ordinary_turns(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows whose message is not marked an emergency by its author (`emergency`): the
    questions that must get their answer, never a crisis message instead (issue 25)."""
    return [r for r in rows if not r.get("expect_emergency")]


# --- measuring --------------------------------------------------------------------------


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return statistics.mean(values) if values else float("nan")


def judge(row: dict[str, Any]) -> dict[str, Any]:
    """What the automatic checks say about one answered turn."""
    parts = [Part.model_validate(p) for p in row["parts"]]
    covered = [p for p in parts if p.covered]
    lines = [tuple(x) for x in row["lines"]]
    gold_cards = {c for p in covered for c in p.cards}
    related_cards = {s.split(":")[0] for p in covered for s in p.related}
    cited = row["citations"]
    out: dict[str, Any] = {"in_scope": bool(covered)}
    # a part no card answers is named ("Essa parte da pergunta os cartões não respondem:
    # ..."): it must be when the message is answered in part, and never when every part is
    # covered
    names = UNCOVERED_MARK in row["answer"]
    if covered and len(covered) < len(parts) and not row["refused"]:
        out["names_uncovered"] = names
    if len(covered) >= 2 and len(covered) == len(parts):
        out["names_covered"] = names
    if covered:
        answered = [any(answers_part(ln, p) for ln in lines) for p in covered]
        out["parts_answered"] = sum(answered)
        out["all_parts"] = all(answered)
        out["holds"] = any(answered)
        lead = lines[: lead_lines(lines)]
        out["opens"] = any(answers_part(ln, p) for ln in lead for p in covered)
        out["wrongly_refused"] = row["refused"]
        out["first_citation_right"] = bool(cited) and cited[0] in gold_cards
        out["citation_precision"] = (
            len([c for c in cited if c in gold_cards | related_cards]) / len(cited)
            if cited
            else None
        )
        out["recall@5"] = bool(set(row["ranked"][:5]) & gold_cards)
        out["lines"] = len(lines)
    else:
        out["refused"] = row["refused"]
    return out


def metrics(rows: list[dict[str, Any]]) -> dict[str, Any]:
    judged = [(r, judge(r)) for r in rows]
    single = [(r, j) for r, j in judged if r["kind"] in ("one_point", "complaint", "story")]
    multi = [(r, j) for r, j in judged if r["kind"] in ("two_part", "partly_covered")]
    follow = [(r, j) for r, j in judged if r["kind"] == "conversation" and r["follow_up"]]
    inscope = [(r, j) for r, j in judged if j["in_scope"]]
    oos = [(r, j) for r, j in judged if not j["in_scope"]]
    return {
        "n_turns": len(rows),
        "one_point": {
            "n": len(single),
            "opens": _mean(j["opens"] for _, j in single),
            "holds": _mean(j["holds"] for _, j in single),
            "lines": _mean(j["lines"] for r, j in single if not r["refused"]),
        },
        "two_part": {
            "n": len(multi),
            "all_parts": _mean(j["all_parts"] for _, j in multi),
            "holds": _mean(j["holds"] for _, j in multi),
        },
        "uncovered_part": {
            # answered turns with a part no card answers, and whether the answer names it
            "n": sum("names_uncovered" in j for _, j in judged),
            "named": _mean(j["names_uncovered"] for _, j in judged if "names_uncovered" in j),
            # turns whose every part (2+) is covered, and whether one is named as not
            "n_all_covered": sum("names_covered" in j for _, j in judged),
            "covered_named": _mean(j["names_covered"] for _, j in judged if "names_covered" in j),
        },
        "follow_up": {
            "n": len(follow),
            "first_citation_right": _mean(
                j["first_citation_right"] for _, j in follow if j["in_scope"]
            ),
            "holds": _mean(j["holds"] for _, j in follow if j["in_scope"]),
        },
        "card": {
            "n_in_scope": len(inscope),
            "recall@5": _mean(j["recall@5"] for _, j in inscope),
            "first_citation_right": _mean(
                j["first_citation_right"] for r, j in inscope if not r["refused"]
            ),
            "citation_precision": _mean(
                j["citation_precision"] for _, j in inscope if j["citation_precision"] is not None
            ),
            "wrongly_refused": _mean(j["wrongly_refused"] for _, j in inscope),
            "n_out_of_scope": len(oos),
            "out_of_scope_refused": _mean(j["refused"] for _, j in oos),
        },
    }


def by_author(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    authors = sorted({r["author"] for r in rows})
    return {a: metrics([r for r in rows if r["author"] == a]) for a in authors}


def table(results: dict[str, dict[str, Any]]) -> str:
    lines = [
        "| author | one-point n | opens | holds | lines | two-part n | all parts | "
        "follow-ups n | first cit. | in scope n | recall@5 | first cit. | cit. precision | "
        "wrongly refused | out of scope n | refused | partly n | uncovered named | "
        "all covered n | covered named |",
        "|" + "---|" * 20,
    ]
    for name, m in results.items():
        o, t, f, c = m["one_point"], m["two_part"], m["follow_up"], m["card"]
        u = m["uncovered_part"]
        lines.append(
            f"| {name} | {o['n']} | {o['opens']:.3f} | {o['holds']:.3f} | {o['lines']:.2f} | "
            f"{t['n']} | {t['all_parts']:.3f} | {f['n']} | {f['first_citation_right']:.3f} | "
            f"{c['n_in_scope']} | {c['recall@5']:.3f} | {c['first_citation_right']:.3f} | "
            f"{c['citation_precision']:.3f} | {c['wrongly_refused']:.3f} | "
            f"{c['n_out_of_scope']} | {c['out_of_scope_refused']:.3f} | "
            f"{u['n']} | {u['named']:.3f} | {u['n_all_covered']} | {u['covered_named']:.3f} |"
        )
    return "\n".join(lines)


# --- grades -----------------------------------------------------------------------------

GRADES = ROOT / "tests" / "eval" / "grades.yaml"


def answer_hash(answer: str) -> str:
    import hashlib

    return hashlib.sha256(_norm(answer).encode("utf-8")).hexdigest()[:12]


def load_grades(path: Path = GRADES) -> dict[tuple[str, str], str]:
    """(turn id, answer hash) -> grade, as a reader with the cards graded that answer."""
    if not path.exists():
        return {}
    raw = read_yaml(path) or []
    return {(g["id"], g["answer"]): g["grade"] for g in raw}


def graded(rows: list[dict[str, Any]], grades: dict[tuple[str, str], str]) -> dict[str, Any]:
    """The share of each grade over the graded sample: a turn whose answer changed since it
    was graded counts as not graded, and not as an A."""
    sample = {tid for tid, _ in grades}
    mine = [r for r in rows if r["id"] in sample]
    got = [grades.get((r["id"], answer_hash(r["answer"]))) for r in mine]
    n = len(mine)
    out: dict[str, Any] = {"n": n, "stale": sum(g is None for g in got)}
    for grade in "ABCD":
        out[grade] = sum(g == grade for g in got) / n if n else float("nan")
    return out


# --- the grading sheet ------------------------------------------------------------------


def sheet(rows: list[dict[str, Any]], titles: dict[str, str]) -> str:
    """The answers as a patient reads them (citation chips as card titles), one block per
    item, for a grader who has the cards but not the code nor the labels."""
    out = []
    for r in rows:
        out.append(f"### {r['id']}")
        for n, (q, a) in enumerate(r["history"], start=1):
            out.append(f"(earlier turn {n}) patient: {q}")
            out.append(f"(earlier turn {n}) service: {a}")
        out.append(f"**Question:** {r['question']}")
        out.append(f"**Answer:** {r['answer']}")
        chips = ", ".join(f"{c} ({titles.get(c, '?')})" for c in r["citations"]) or "none"
        out.append(f"**Cards cited:** {chips}")
        out.append("")
    return "\n".join(out)


def card_titles() -> dict[str, str]:
    out = {}
    for path in sorted(CARDS.glob("card-*.md")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("title:"):
                out[path.stem] = line.split(":", 1)[1].strip().strip('"')
                break
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.authored", description=__doc__)
    parser.add_argument("--set", type=Path, action="append", default=[], help="a set file")
    parser.add_argument("--out", type=Path, default=ROOT / "artifacts" / "authored")
    parser.add_argument("--sheet", action="store_true", help="write grading sheets")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    from app.core.config import settings_from_environment
    from evaluation.quality import build_agent

    if args.set:
        sets = {p.stem: load_set(p, "test") for p in args.set}
    else:
        sets = load_authors()
    with tempfile.TemporaryDirectory(prefix="rag-authored-") as tmp:
        agent = build_agent(settings_from_environment(), Path(tmp))
        rows = [row for items in sets.values() for row in ask_items(agent, items)]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "rows.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1))
    results = by_author(rows)
    (args.out / "metrics.json").write_text(json.dumps(results, indent=1))
    print(table(results))
    if args.sheet:
        titles = card_titles()
        for author in sorted({r["author"] for r in rows}):
            path = args.out / f"sheet-{author}.md"
            path.write_text(sheet([r for r in rows if r["author"] == author], titles))
            print(f"grading sheet: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
