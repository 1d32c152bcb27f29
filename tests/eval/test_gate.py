"""The evaluation gate: parent-document retrieval must stay at parity or better than the
card-atomic baseline on recall@3 and recall@5, and above the recorded floors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from evaluation.__main__ import FLOORS, gate, main
from evaluation.golden import load_golden

pytestmark = [pytest.mark.model, pytest.mark.slow]


def test_golden_set_has_the_required_shape() -> None:
    cases = load_golden()
    kinds = [c.kind for c in cases]
    assert len(cases) >= 80
    assert kinds.count("narrow") >= 40 and kinds.count("broad") >= 15
    assert kinds.count("multi") >= 10 and kinds.count("out_of_scope") >= 15
    cited = {card for c in cases for card in c.must_cite_one_of}
    assert cited == {f"card-{i:03d}" for i in range(1, 39)}


def test_parent_document_meets_the_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--gate", "--out", str(tmp_path)]) == 0, capsys.readouterr().out
    report = json.loads((tmp_path / "report.json").read_text())
    results = report["configurations"]
    floors = yaml.safe_load(FLOORS.read_text())["parent-document"]
    assert gate(results, floors, report["default"]) == []
    assert (tmp_path / "recall_at_k.png").stat().st_size > 10_000
    assert report["agent"]["cites_expected_card"] >= 0.8
    assert report["agent"]["with_citation_warnings"] == 0.0


def test_gate_fails_when_parent_document_falls_below_baseline() -> None:
    results = {
        "card-atomic": {"in_scope": {"recall@3": 0.9, "recall@5": 0.95}},
        "parent-document dense": {"in_scope": {"recall@3": 0.85, "recall@5": 0.99}},
    }
    name = "parent-document dense"
    failures = gate(results, {"recall@3": 0.8, "recall@5": 0.8}, name)
    assert failures == ["parent-document dense recall@3 0.850 < card-atomic 0.900"]
    assert gate(results, {"recall@3": 0.8, "recall@5": 0.995}, name)[-1].startswith(
        "parent-document dense recall@5 0.990 < floor"
    )
