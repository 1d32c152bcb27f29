"""Patient questions of the tuning half, labelled covered or not, with the cards that
answer them: the answerability decision's nearest neighbours and the ranking's votes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

BANK_PATH = Path(__file__).resolve().with_name("answerability_bank.json")


class QuestionBank:
    """Patient questions of the tuning half, labelled covered or not, as the decision's
    nearest neighbours: a new question close to known covered ones (or to known uncovered
    ones) is evidence in itself. Written by the training (python -m evaluation.answerability);
    embedded once per process."""

    def __init__(
        self,
        texts: list[str],
        covered: list[bool],
        embed: Callable[[list[str]], np.ndarray],
        cards: list[list[str]] | None = None,
    ):
        self.texts = texts
        self.covered = np.array(covered, dtype=bool)
        self.cards = cards if cards is not None else [[] for _ in texts]
        self._embed = embed
        self._vectors: np.ndarray | None = None
        self._index = {t: i for i, t in enumerate(texts)}

    @classmethod
    def load(cls, embed: Callable[[list[str]], np.ndarray], path: Path = BANK_PATH) -> QuestionBank:
        data = json.loads(path.read_text(encoding="utf-8"))
        questions = data["questions"]
        return cls(
            [q["text"] for q in questions],
            [q["covered"] for q in questions],
            embed,
            [list(q.get("cards", [])) for q in questions],
        )

    def card_votes(self, vector: np.ndarray, text: str = "", k: int = 3) -> dict[str, float]:
        """The cards that answer the k covered questions nearest to this one, each with the
        similarity of its nearest: patient questions as extra vectors of the card that
        answers them (the multi-vector "example questions" technique). The question itself,
        if it is in the bank, is left out, so the tuning half is measured leave-one-out."""
        if not len(self.texts):
            return {}
        sims = self.vectors @ vector
        sims = np.where(self.covered, sims, -1.0)
        own = self._index.get(text)
        if own is not None:
            sims = sims.copy()
            sims[own] = -1.0
        votes: dict[str, float] = {}
        for i in np.argsort(-sims, kind="stable")[:k]:
            if sims[i] <= -1.0 or not self.cards[i]:
                continue
            card = self.cards[i][0]
            votes[card] = max(votes.get(card, -1.0), float(sims[i]))
        return votes

    @property
    def vectors(self) -> np.ndarray:
        if self._vectors is None:
            self._vectors = self._embed(self.texts) if self.texts else np.zeros((0, 1))
        return self._vectors

    def features(self, vector: np.ndarray, exclude: int | None = None) -> dict[str, float]:
        sims = self.vectors @ vector if len(self.texts) else np.zeros(0)
        if exclude is not None:
            sims = sims.copy()
            sims[exclude] = -1.0
        out = {}
        for label, name in ((True, "in"), (False, "out")):
            ranked = np.sort(sims[self.covered == label])[::-1]
            out[f"bank_{name}_1"] = float(ranked[0]) if len(ranked) else 0.0
            out[f"bank_{name}_3"] = float(ranked[:3].mean()) if len(ranked) else 0.0
        return out
