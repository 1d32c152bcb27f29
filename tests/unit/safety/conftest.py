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


def write_resemblance_bank(directory: Path, ordinary: bool) -> Path:
    """A bank where "alfa beta gama ..." resembles two self-harm exemplars (the fake
    embedder's vectors), with or without two ordinary questions that share those words."""
    path = directory / f"bank-{ordinary}.yaml"
    groups = [
        "- kind: self_harm\n  subkind: implicit\n"
        "  examples: [alfa beta gama delta, alfa beta gama zeta]\n",
        "- kind: informational\n  subkind: none\n  examples: [qual horario certo]\n",
    ]
    if ordinary:
        groups.append(
            "- kind: ordinary\n  subkind: tune-ordinary\n"
            "  examples: [alfa beta gama epsilon, alfa beta gama epsilon kappa]\n"
        )
    path.write_text("".join(groups), encoding="utf-8")
    return path
