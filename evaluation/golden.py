"""Golden cases: loading and validation of tests/eval/golden.yaml."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, model_validator

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "eval" / "golden.yaml"

Kind = Literal["narrow", "broad", "multi", "out_of_scope"]


class GoldenCase(BaseModel):
    id: str
    kind: Kind
    question: str
    must_cite_one_of: list[str] = []
    expect_refusal: bool = False

    @model_validator(mode="after")
    def _consistent(self) -> GoldenCase:
        if self.kind == "out_of_scope":
            if self.must_cite_one_of or not self.expect_refusal:
                raise ValueError(f"{self.id}: out_of_scope needs expect_refusal and no cards")
        elif not self.must_cite_one_of:
            raise ValueError(f"{self.id}: {self.kind} case needs must_cite_one_of")
        return self


def load_golden(path: Path = GOLDEN) -> list[GoldenCase]:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    cases = [GoldenCase.model_validate(item) for item in raw]
    ids = [c.id for c in cases]
    if len(ids) != len(set(ids)):
        raise ValueError(f"{path}: duplicate case ids")
    return cases
