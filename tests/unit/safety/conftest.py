"""Fixtures shared by the emergency detector's unit tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def informational_bank(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bank with no event exemplar: the fake embedder's arbitrary neighbours decide
    nothing, so the concepts and cues are tested alone (the real neighbours are measured in
    the gate)."""
    path = tmp_path_factory.mktemp("bank") / "bank.yaml"
    path.write_text(
        "- kind: informational\n  subkind: none\n  examples: [o que é pressão alta]\n",
        encoding="utf-8",
    )
    return path
