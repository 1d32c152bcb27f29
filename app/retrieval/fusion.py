"""Reciprocal Rank Fusion of ranked subchunk lists (Cormack et al., 2009)."""

from __future__ import annotations

from collections.abc import Sequence


def rrf(
    rankings: Sequence[Sequence[str]], weights: Sequence[float], k: int = 60
) -> dict[str, float]:
    """Fused score per id, highest first: sum over lists of weight / (k + rank), rank from 1."""
    if len(rankings) != len(weights):
        raise ValueError("one weight per ranking")
    scores: dict[str, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return dict(sorted(scores.items(), key=lambda kv: (-kv[1], kv[0])))
