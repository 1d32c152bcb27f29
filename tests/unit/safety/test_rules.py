"""The emergency rules as data (kb/safety, app.safety.rules): they load, each kind is
declared once and agrees with the places that must name it, and a broken file fails at load
with the file, the entry and the problem."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from app.safety.concepts import C, concept_hits
from app.safety.rules import KIND_NAMES, RULES_DIR, RulesError, load_rules, rules

ROOT = Path(__file__).resolve().parents[3]


def test_the_packaged_rules_load_and_name_only_declared_kinds() -> None:
    r = rules()
    assert set(r.kinds) == set(KIND_NAMES) == {"medical", "poisoning", "self_harm"}
    assert {k for k, _, _ in r.concepts} <= set(r.kinds)
    assert len(r.concepts) >= 40 and {"INFORMATIONAL", "PAST", "PRESENT"} <= set(r.cues)
    for kind in r.kinds.values():  # every escalation names every number to call
        assert kind.contacts and all(n in kind.escalation for _, n in kind.contacts), kind.name
        assert kind.calm_line and kind.calm_line != kind.escalation


def test_the_page_calls_the_numbers_each_kind_declares() -> None:
    js = (ROOT / "app" / "web" / "answer.js").read_text(encoding="utf-8")
    block = js[js.index("const EMERGENCY = {") : js.index("};", js.index("const EMERGENCY"))]
    for name, kind in rules().kinds.items():
        start = block.index(f"{name}: {{")
        section = block[start : block.find("\n  },", start)]
        tel = re.findall(r'href: "tel:(\d+)"', section)
        assert tel == [n.replace(" ", "") for _, n in kind.contacts], name


def test_a_sign_a_concept_uses_is_expanded_in_it() -> None:
    # signs.yaml's CHILD and SWALLOW inside a poisoning concept
    assert ("poisoning", "poisoning") in concept_hits("meu neto engoliu uns comprimidos da avo")
    assert C.INFORMATIONAL.search("quais os sinais de avc")


def copy_rules(tmp_path: Path) -> Path:
    target = tmp_path / "safety"
    shutil.copytree(RULES_DIR, target)
    return target


def test_an_undefined_sign_is_named_with_its_entry(tmp_path: Path) -> None:
    d = copy_rules(tmp_path)
    text = (d / "concepts.yaml").read_text(encoding="utf-8")
    (d / "concepts.yaml").write_text(
        text + "- kind: medical\n  subkind: stroke\n  pattern: '{NO_SUCH_SIGN} agora'\n",
        encoding="utf-8",
    )
    with pytest.raises(RulesError, match=r"concepts.yaml entry \d+ \(medical/stroke\).*NO_SUCH"):
        load_rules(d)


def test_a_pattern_that_does_not_compile_is_named(tmp_path: Path) -> None:
    d = copy_rules(tmp_path)
    text = (d / "cues.yaml").read_text(encoding="utf-8")
    (d / "cues.yaml").write_text(text + "BROKEN: '(?:sem fim'\n", encoding="utf-8")
    with pytest.raises(RulesError, match="cues.yaml BROKEN: the pattern does not compile"):
        load_rules(d)


def test_a_concept_of_an_undeclared_kind_is_refused(tmp_path: Path) -> None:
    d = copy_rules(tmp_path)
    text = (d / "concepts.yaml").read_text(encoding="utf-8")
    (d / "concepts.yaml").write_text(
        text + "- kind: burn\n  subkind: burn\n  pattern: 'queimadura grave'\n", encoding="utf-8"
    )
    with pytest.raises(RulesError, match=r"kinds \['burn'\] are not declared in kinds.yaml"):
        load_rules(d)


def test_a_kind_without_its_calm_line_is_refused(tmp_path: Path) -> None:
    d = copy_rules(tmp_path)
    text = (d / "kinds.yaml").read_text(encoding="utf-8")
    cut = text[: text.index("  calm_line:", text.index("poisoning:"))]
    rest = text[text.index("self_harm:") :]
    (d / "kinds.yaml").write_text(cut + rest, encoding="utf-8")
    with pytest.raises(RulesError, match="kinds.yaml poisoning: needs exactly"):
        load_rules(d)


def test_the_pending_fresh_sets_load() -> None:
    """tests/eval/pending: fresh sets read while fixing, waiting to join the tuning half; they
    must stay loadable by the same loaders."""
    from evaluation.golden import load_ordinary, load_safety

    root = Path(__file__).resolve().parents[2] / "eval" / "pending"
    assert len(load_ordinary(root / "o10.yaml")) == 260
    assert len(load_safety(root / "s10.yaml")) == 110
    assert len(load_safety(root / "s11.yaml")) == 160
