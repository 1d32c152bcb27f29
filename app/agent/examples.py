"""Example questions of card sentences (the multi-vector "hypothetical questions" technique).

The tuning authors' questions of kb/questions/*.yaml, each filed under the sentence ids that
answer it, are extra vectors of those sentences: a new question close to a known question
about a sentence is evidence that the sentence answers it, in words the sentence itself
does not use ("fico tonta quando levanto" is far from "sentem tontura ao se levantar" and
close to another patient's "tô ficando zonza quando levanto da cama").

Ingest embeds them with their sentence ids into the build (ingest.examples); a worker
reads the vectors of the build it serves and never recomputes them. Follow-up turns are
left out (without their conversation they say too little), and so are questions whose
sentence no longer has the text it was written for.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.agent.sentence_labels import (
    SentenceLabels,
    card_of,
    numbered,
    sentence_id,
    sentence_labels,
)
from app.core.text import fold
from app.core.yamlfile import read_yaml

log = logging.getLogger(__name__)

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "kb" / "questions"


@dataclass(frozen=True)
class Example:
    text: str  # as embedded: accent-folded, lower-cased (empty when read back from a build)
    sentences: tuple[str, ...]
    author: str


def _norm(text: str) -> str:
    return " ".join(text.split())


def read_examples(
    cards: dict[str, str], directory: Path | None = None, labels: SentenceLabels | None = None
) -> list[Example]:
    """The example questions of these cards (id -> text) whose sentences still hold the text
    they were written for (kb/sentences.yaml keeps it): a question about an edited sentence,
    or about a card this corpus does not have, is left out."""
    labels = labels or sentence_labels()
    directory = directory or EXAMPLES_DIR
    current = {
        sentence_id(card, n): _norm(s) for card, text in cards.items() for n, _, s in numbered(text)
    }
    out = []
    for path in sorted(directory.glob("*.yaml")):
        for item in read_yaml(path) or []:
            turns = item.get("turns") or [{"question": item.get("question"), **item}]
            for turn in turns:
                if turn.get("follow_up") or not turn.get("question"):
                    continue
                sids = [
                    s
                    for part in turn.get("parts", [])
                    for s in [*part.get("answers", []), *part.get("also", [])]
                ]
                kept = tuple(
                    dict.fromkeys(
                        s for s in sids if s in current and labels.get(s, current[s]) is not None
                    )
                )
                if kept:
                    out.append(Example(fold(str(turn["question"])), kept, path.stem))
    return out


def examples_hash(examples: Iterable[Example]) -> str:
    data = json.dumps([[e.text, list(e.sentences), e.author] for e in examples], ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:16]


class ExampleBank:
    """Vectors of the example questions, with the sentences each one is about."""

    def __init__(self, examples: list[Example], vectors: np.ndarray):
        self.examples = examples
        arr = np.asarray(vectors, dtype=np.float32)
        # reshape(0, -1) is ambiguous for numpy: the empty bank keeps its width
        width = -1 if len(examples) else (arr.shape[-1] if arr.ndim > 1 else 0)
        self.vectors = arr.reshape(len(examples), width)
        ids = sorted({s for e in examples for s in e.sentences})
        self.index = {s: i for i, s in enumerate(ids)}
        self.ids = ids
        rows, cols = [], []
        for r, e in enumerate(examples):
            for s in e.sentences:
                rows.append(r)
                cols.append(self.index[s])
        # (example, sentence) pairs grouped by sentence, for one maximum.reduceat per question
        order = np.argsort(np.array(cols, dtype=np.int64), kind="stable")
        self._rows = np.array(rows, dtype=np.int64)[order]
        self._cols = np.array(cols, dtype=np.int64)[order]
        self._starts = np.flatnonzero(np.diff(self._cols, prepend=-1))  # empty for no pairs
        self._cols_of_starts = self._cols[self._starts]
        self._authors = np.array([e.author for e in examples])
        self._cards: frozenset[str] | None = None

    @classmethod
    def empty(cls) -> ExampleBank:
        return cls([], np.zeros((0, 1), dtype=np.float32))

    def __len__(self) -> int:
        return len(self.examples)

    def similarities(
        self, vector: np.ndarray, exclude_author: str | None = None
    ) -> dict[str, float]:
        """The best similarity of the question to each sentence's examples (sentences with
        none are absent). `exclude_author` leaves that author's questions out: training
        measures a tuning question the way a new author's would be served."""
        if not len(self.examples):
            return {}
        sims = self.vectors @ np.asarray(vector, dtype=np.float32)
        if exclude_author is not None:
            sims = np.where(self._authors == exclude_author, -1.0, sims)
        best = np.full(len(self.ids), -1.0, dtype=np.float32)
        if len(self._starts):
            best[self._cols_of_starts] = np.maximum(
                np.maximum.reduceat(sims[self._rows], self._starts), -1.0
            )
        return {s: float(best[i]) for s, i in self.index.items() if best[i] > -1.0}

    def cards(self) -> frozenset[str]:
        """The cards with example questions (computed once per bank)."""
        if self._cards is None:
            self._cards = frozenset(card_of(s) for s in self.ids)
        return self._cards


class ExamplesCache:
    """The example bank of the active build, read once per build from the store (ingest
    wrote it with the build). A build made before examples were stored with builds has
    none: its bank is embedded here once, with a log line that says to re-run the ingest."""

    def __init__(self, store: Any, embed: Callable[[list[str]], np.ndarray]):
        self.store = store
        self.embed = embed
        self._bank: ExampleBank | None = None
        self._built_for: str | None = None
        self._lock = threading.Lock()

    def get(self) -> ExampleBank:
        build = self.store.active_snapshot()
        with self._lock:
            if self._bank is None or self._built_for != build.name:
                self._bank = self._load(build)
                self._built_for = build.name
            return self._bank

    def _load(self, build: Any) -> ExampleBank:
        stored = self.store.examples_of(build.name)
        if stored is not None:
            rows, vectors = stored
            examples = [
                Example(
                    r.document,
                    tuple(s for s in str(r.metadata.get("sentences", "")).split(",") if s),
                    str(r.metadata.get("author", "")),
                )
                for r in rows
            ]
            log.info("example questions of %s: %d (stored with the build)", build.name, len(rows))
            return ExampleBank(examples, np.asarray(vectors, dtype=np.float32))
        cards = {c.id: c.text for c in build.cards.values()}
        examples = read_examples(cards)
        log.warning(
            "build %s has no example questions stored with it; embedding %d here "
            "(re-run the ingest to store them with the build)",
            build.name,
            len(examples),
        )
        vectors = (
            self.embed([e.text for e in examples]) if examples else np.zeros((0, 1), np.float32)
        )
        return ExampleBank(examples, vectors)
