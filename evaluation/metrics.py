"""Ranking and refusal metrics over parent (card) ids."""

from __future__ import annotations

import math
from collections.abc import Sequence


def hit_at(ranked: Sequence[str], gold: set[str], k: int) -> float:
    return 1.0 if gold & set(ranked[:k]) else 0.0


def reciprocal_rank(ranked: Sequence[str], gold: set[str]) -> float:
    for i, card in enumerate(ranked, start=1):
        if card in gold:
            return 1.0 / i
    return 0.0


def ndcg_at(ranked: Sequence[str], gold: set[str], k: int) -> float:
    dcg = sum(1.0 / math.log2(i + 1) for i, c in enumerate(ranked[:k], start=1) if c in gold)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(gold), k) + 1))
    return dcg / ideal if ideal else 0.0


def precision_recall(predicted: Sequence[bool], actual: Sequence[bool]) -> tuple[float, float]:
    """Precision and recall of the positive class (here: 'refused')."""
    tp = sum(p and a for p, a in zip(predicted, actual, strict=True))
    fp = sum(p and not a for p, a in zip(predicted, actual, strict=True))
    fn = sum(a and not p for p, a in zip(predicted, actual, strict=True))
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return precision, recall
