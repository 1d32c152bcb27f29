"""The gaps report: grouping, order, example, counts; the real model's grouping of
paraphrases; the `make gaps` command (text, CSV, JSON)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
import yaml

from app.core.config import Settings
from app.feedback.gaps import DEFAULT_DISTANCE, cluster_labels, group
from app.feedback.store import AnswerRecord, FeedbackStore, GapRow
from tests.conftest import ROOT
from tests.fakes import FakeEmbedder

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
PARAPHRASES = Path(__file__).with_name("gap_paraphrases.yaml")


def row(
    question: str, *, refused: bool = True, reason: str | None = None, minutes: int = 0
) -> GapRow:
    return GapRow(
        question=question,
        outcome="refused" if refused else "answered",
        helpful=None if refused else False,
        reason=reason,
        created_at=NOW - timedelta(minutes=minutes),
    )


def test_groups_are_counted_and_ordered_most_frequent_first() -> None:
    rows = [
        row("ozempic emagrece?"),
        row("Ozempic emagrece"),  # case and end punctuation aside: the same question
        row("ozempic emagrece?", minutes=5),
        row("ozempic emagrece rapido?", refused=False, reason="nao_respondeu"),
        row("capital da australia?"),
        row("vacina gripe reação?", refused=False, reason="informacao_errada"),
        row("vacina gripe reação febre?"),
    ]
    clusters = group(rows, FakeEmbedder().embed, distance=0.6)
    assert [c.count for c in clusters] == [4, 2, 1]
    ozempic, vacina, capital = clusters
    assert ozempic.example == "ozempic emagrece?"  # the most frequent wording
    assert [(q.question, q.count) for q in ozempic.questions] == [
        ("ozempic emagrece?", 3),
        ("ozempic emagrece rapido?", 1),
    ]
    assert (ozempic.refused, ozempic.not_helpful) == (3, 1)
    assert ozempic.reasons == {"nao_respondeu": 1}
    assert ozempic.last_seen == NOW
    assert vacina.reasons == {"informacao_errada": 1} and vacina.count == 2
    assert capital.example == "capital da australia?" and capital.questions[0].count == 1


def test_no_rows_no_groups() -> None:
    assert group([], FakeEmbedder().embed, DEFAULT_DISTANCE) == []


def test_one_question_is_one_group() -> None:
    assert cluster_labels(np.ones((1, 4), dtype=np.float32), DEFAULT_DISTANCE).tolist() == [0]


@pytest.mark.model
def test_the_service_embedder_groups_paraphrases_of_each_gap_together() -> None:
    from sklearn.metrics import adjusted_rand_score

    from app.embedding import get_embedder

    groups: dict[str, list[str]] = yaml.safe_load(PARAPHRASES.read_text())
    texts = [q for qs in groups.values() for q in qs]
    truth = [name for name, qs in groups.items() for _ in qs]
    vectors = get_embedder(Settings(_env_file=None)).embed(texts)  # type: ignore[call-arg]
    labels = cluster_labels(vectors, DEFAULT_DISTANCE)
    # Measured when DEFAULT_DISTANCE was chosen (17 gaps, 48 questions): ARI 0.932 at
    # 0.46-0.48 (two analgesic questions merged, the PrEP questions split in two), 0.955
    # at 0.50, falling to 0.770 at 0.55 as unrelated gaps merge.
    assert adjusted_rand_score(truth, labels) >= 0.9, list(zip(texts, labels, strict=True))
    assert len(set(labels)) in range(len(groups) - 2, len(groups) + 3)


def _seed(url: str) -> None:
    store = FeedbackStore(url, 90)
    store.create_schema(NOW)
    now = datetime.now(UTC)
    questions = [
        ("posso tomar ozempic para emagrecer?", "refused"),
        ("ozempic emagrece?", "refused"),
        ("o ozempic serve pra perder peso?", "refused"),
        ("posso tomar ozempic para emagrecer?", "refused"),
        ("qual é a capital da Austrália?", "refused"),
        ("como pedir auxilio doença no inss?", "refused"),
        ("como dou entrada na aposentadoria por invalidez no INSS?", "refused"),
        ("devo tomar a levotiroxina em jejum?", "answered"),  # rated below
        ("como guardar a insulina?", "answered"),  # answered and never rated: not a gap
    ]
    records = [
        AnswerRecord(uuid.uuid4().hex, now, q, outcome, [], [], "b") for q, outcome in questions
    ]
    old = AnswerRecord(
        uuid.uuid4().hex, now - timedelta(days=91), "antiga?", "refused", [], [], "b"
    )
    store.record_answers([*records, old])
    store.add_feedback(records[7].answer_id, False, "dificil_de_entender", now)
    store.dispose()


@pytest.mark.model
@pytest.mark.slow
def test_make_gaps_prints_groups_writes_csv_and_the_api_json(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'feedback.db'}"
    _seed(url)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("FEEDBACK_", "EMBEDDING_"))},
        "FEEDBACK_DATABASE_URL": url,
        "PYTHONPATH": str(ROOT),
        "HF_HUB_OFFLINE": "1",
    }

    def gaps(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "app.feedback.gaps", *args],
            cwd=tmp_path,  # no developer .env
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    out_csv = tmp_path / "out" / "gaps.csv"
    text = gaps("--csv", str(out_csv))
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == "(purged 1 answer(s) older than 90 days)"
    assert "8 question(s) in 4 group(s)" in lines[1]
    first = lines.index("  1. 4 question(s): refused 4, not helpful 0")
    assert lines[first + 1 : first + 4] == [
        "       2 x  posso tomar ozempic para emagrecer?",
        "       1 x  ozempic emagrece?",
        "       1 x  o ozempic serve pra perder peso?",
    ]
    second = lines.index("  2. 2 question(s): refused 2, not helpful 0")
    assert "inss" in lines[second + 1].lower() and "inss" in lines[second + 2].lower()
    assert "refused 0, not helpful 1 (dificil_de_entender 1)" in text.stdout
    assert "insulina" not in text.stdout and "antiga" not in text.stdout

    with out_csv.open(encoding="utf-8-sig", newline="") as f:
        table = list(csv.DictReader(f))
    assert [int(r["count"]) for r in table] == [4, 2, 1, 1]
    assert table[0]["example"] == "posso tomar ozempic para emagrecer?"
    assert "ozempic emagrece? (1)" in table[0]["other_questions"]

    js = gaps("--json")
    assert js.returncode == 0, js.stderr
    report = json.loads(js.stdout)
    assert report["questions"] == 8 and report["days"] == 90
    assert [c["count"] for c in report["clusters"]] == [4, 2, 1, 1]
    assert report["distance_threshold"] == DEFAULT_DISTANCE


def test_bad_options_are_refused_with_a_message(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "app.feedback.gaps", "--days", "0"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and "--days must be at least 1, got 0" in done.stderr
