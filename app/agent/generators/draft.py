"""What every generator returns (a Draft: text with [cite:card-X] markers, plus the ids it
claims to have used) and what a generator is. Verification (app.agent.verify) comes after,
for all."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from app.agent.generators.focus import Focus
from app.retrieval.models import ContextChunk


@dataclass
class Draft:
    text: str
    citations: list[str]
    generator: str
    warnings: list[str] = field(default_factory=list)
    uncovered: list[str] = field(default_factory=list)  # parts of the question no card answers


class Generator(Protocol):
    name: str

    def generate(
        self, question: str, parents: list[ContextChunk], query_vector: np.ndarray, focus: Focus
    ) -> Draft: ...
