"""The banks' embeddings kept on disk (app.core.vector_cache)."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from app.core.config import Settings
from app.core.vector_cache import BULK, cached_embed
from tests.fakes import FakeEmbedder

TEXTS = [f"exemplo número {i} de uma frase" for i in range(BULK)]


def test_a_bank_is_embedded_once_per_content_and_model(tmp_path: Path) -> None:
    fake = FakeEmbedder()
    embed = cached_embed(fake.embed, "model-a", tmp_path)
    first = embed(TEXTS)
    calls = fake.calls
    again = cached_embed(fake.embed, "model-a", tmp_path)(TEXTS)  # another worker, same disk
    assert fake.calls == calls and np.array_equal(first, again)
    cached_embed(fake.embed, "model-b", tmp_path)(TEXTS)  # another model: computed
    assert fake.calls > calls
    calls = fake.calls
    embed([*TEXTS[:-1], "uma frase nova"])  # other content: computed
    assert fake.calls > calls
    assert not list(tmp_path.glob(".*.tmp"))  # written whole, then renamed


def test_questions_pass_through_and_are_never_written(tmp_path: Path) -> None:
    fake = FakeEmbedder()
    embed = cached_embed(fake.embed, "model-a", tmp_path)
    embed(["posso tomar com café?"])
    embed(["posso tomar com café?"])
    assert fake.calls == 2 and not list(tmp_path.iterdir())


def test_a_broken_or_unwritable_cache_only_costs_the_time(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fake = FakeEmbedder()
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    with caplog.at_level(logging.WARNING):
        out = cached_embed(fake.embed, "m", blocked / "cache")(TEXTS)
    assert out.shape == (BULK, fake.dimension) and "not written" in caplog.text
    good = tmp_path / "cache"
    cached_embed(fake.embed, "m", good)(TEXTS)
    for f in good.glob("*.npy"):
        f.write_bytes(b"truncated")  # a damaged file is recomputed and rewritten
    calls = fake.calls
    assert cached_embed(fake.embed, "m", good)(TEXTS).shape == (BULK, fake.dimension)
    assert fake.calls > calls


def test_an_empty_setting_turns_the_cache_off() -> None:
    assert Settings(_env_file=None, vector_cache_dir="").vector_cache_dir is None  # type: ignore[call-arg]
    assert Settings(_env_file=None).vector_cache_dir is not None  # type: ignore[call-arg]
