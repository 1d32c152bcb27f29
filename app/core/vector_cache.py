"""Bulk embeddings kept on disk: the exemplar banks and the question bank are embedded once
per content and model, not at every worker start (issue 25 made the emergency bank
larger; issue 29 asks for workers ready in seconds).

`cached_embed(embed, model_id, directory)` wraps an embedding function. A call with at
least BULK texts is looked up in `directory` by a hash of the model id and the texts, in
order; a miss is embedded and written atomically (a temporary file, then a rename, so two
workers starting together never read half a file). Smaller calls, the patients'
questions, pass straight through and are never written. A directory that cannot be
written only costs the time: the vectors are computed as before, with one warning.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)
BULK = 64
Embed = Callable[[list[str]], np.ndarray]


def cache_key(model_id: str, texts: list[str]) -> str:
    h = hashlib.sha256(model_id.encode("utf-8"))
    for text in texts:
        h.update(b"\0" + text.encode("utf-8"))
    return h.hexdigest()[:40]


def cached_embed(embed: Embed, model_id: str, directory: Path | None) -> Embed:
    if directory is None:
        return embed
    warned: list[bool] = []

    def bulk(texts: list[str]) -> np.ndarray:
        if len(texts) < BULK:
            return embed(texts)
        path = directory / f"{cache_key(model_id, texts)}.npy"
        try:
            vectors: np.ndarray = np.load(path, allow_pickle=False)
            if vectors.shape[0] == len(texts):
                return vectors
        except (OSError, ValueError):
            pass
        vectors = np.asarray(embed(texts), dtype=np.float32)
        tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp")
        try:
            directory.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as f:
                np.save(f, vectors, allow_pickle=False)
            os.replace(tmp, path)
        except OSError as e:
            if not warned:
                warned.append(True)
                log.warning("vector cache %s not written (%s)", directory, e)
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
        return vectors

    return bulk
