"""Small fakes for unit tests: no network, no model download."""

from __future__ import annotations

import hashlib
import re

import numpy as np


class FakeEmbedder:
    """Deterministic hashed bag-of-words vectors: texts sharing words are close."""

    model_id = "fake/hashed-bow"

    def __init__(self, dimension: int = 256):
        self.dimension = dimension
        self.calls = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w{4,}", text.lower()):
                h = int(hashlib.md5(word.encode()).hexdigest(), 16)
                out[row, h % self.dimension] += 1.0
            norm = np.linalg.norm(out[row])
            out[row] = out[row] / norm if norm else out[row]
            if not norm:
                out[row, 0] = 1.0
        return out
