"""A broken corpus never takes the service down: the start-up ingest (`python -m ingest`,
what `make run` and compose's `ingest` run) keeps a compatible active index serving and
exits 0, while the refusal stays loud: ERROR lines naming every problem, a non-zero exit
for the explicit rebuild (--clean), and /readyz saying the corpus was refused and what to
run. With no index at all, it still exits 2 (the API must not start empty)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from app.core.config import Settings
from tests.service import Service, ingest, service_env

pytestmark = [pytest.mark.model, pytest.mark.slow]


def run(settings: Settings, *args: str):  # noqa: ANN201
    env = service_env(settings.chroma_path, CORPUS_DIR=str(settings.corpus_dir), LOG_LEVEL="INFO")
    return ingest(env, *args)


def misspell_a_field(cards: Path) -> None:
    path = cards / "card-012.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("title:", "tittle:", 1), encoding="utf-8")


def test_startup_ingest_keeps_a_compatible_index_and_reports_the_refusal(
    embedded_settings: Settings,
) -> None:
    assert run(embedded_settings).returncode == 0
    misspell_a_field(embedded_settings.corpus_dir)

    startup = run(embedded_settings)
    assert startup.returncode == 0, startup.stderr
    assert "ERROR ingest: corpus is invalid" in startup.stderr
    assert "card-012.md: title: Field required" in startup.stderr
    assert "card-012.md: tittle: Extra inputs are not permitted" in startup.stderr
    assert "keeps serving" in startup.stderr and "ingest-clean" in startup.stderr

    explicit = run(embedded_settings, "--clean")
    assert explicit.returncode == 2, explicit.stderr
    assert "card-012.md: title: Field required" in explicit.stderr

    service = Service(embedded_settings.chroma_path)
    service.start()
    try:
        ready = httpx.get(f"{service.url}/readyz", timeout=10)
        answer = httpx.post(
            f"{service.url}/api/ask", json={"question": "Posso tomar dipirona com febre?"}
        )
    finally:
        service.stop()
    assert ready.status_code == 200, ready.text
    corpus = ready.json()["corpus"]
    assert corpus["status"] == "refused", corpus
    assert corpus["problem_count"] == 2
    assert any("tittle" in p for p in corpus["problems"]), corpus
    assert "ingest-clean" in corpus["rebuild"]
    assert answer.status_code == 200 and answer.json()["citations"], answer.text

    # Fixed corpus: the next ingest accepts it and the refusal is gone.
    path = embedded_settings.corpus_dir / "card-012.md"
    path.write_text(path.read_text(encoding="utf-8").replace("tittle:", "title:", 1))
    assert run(embedded_settings).returncode == 0
    service = Service(embedded_settings.chroma_path)
    service.start()
    try:
        ready = httpx.get(f"{service.url}/readyz", timeout=10)
    finally:
        service.stop()
    assert ready.json()["corpus"] == {"status": "accepted"}, ready.text


def test_without_an_index_a_refused_corpus_still_fails_the_startup(
    embedded_settings: Settings,
) -> None:
    misspell_a_field(embedded_settings.corpus_dir)
    startup = run(embedded_settings)
    assert startup.returncode == 2, startup.stderr
    assert "card-012.md: title: Field required" in startup.stderr
