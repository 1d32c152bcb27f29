# Patient Q&A over cited cards. `make` (or `make help`) lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV ?= .venv
PY := $(VENV)/bin/python
export HF_HUB_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false
export PYTHONPATH := $(CURDIR)

.PHONY: help venv run test test-fast test-deps lint ingest ingest-clean eval models redteam

help: ## List the targets
	@awk 'BEGIN{FS=":.*## "} /^[a-zA-Z_-]+:.*## /{printf "  %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

venv: ## Create .venv (CPU-only torch, pinned dependencies); idempotent
	@scripts/bootstrap.sh

run: venv ## Serve API + web page on http://127.0.0.1:8000 (embedded store; ingests first if needed)
	$(PY) -m ingest
	$(PY) -m gunicorn -c app/gunicorn_conf.py app.api.main:app

test: ## The whole suite; first installs what it needs (scripts/test.sh), runs lint, builds images if stale
	@scripts/test.sh $(PYTEST_ARGS)

test-fast: venv ## Inner loop: unit + integration + eval tests (no Docker, no browser)
	@scripts/test-deps.sh postgresql
	$(PY) -m pytest tests/unit tests/integration tests/eval $(PYTEST_ARGS)

test-deps: ## Install what the tests need when missing: chromium, postgresql, Docker engine + compose
	@scripts/test-deps.sh

lint: venv ## ruff and mypy
	$(PY) -m ruff check app ingest evaluation tests scripts bench
	$(PY) -m ruff format --check app ingest evaluation tests scripts bench
	$(PY) -m mypy

ingest: venv ## Build the index if it is missing or stale (embedded store by default)
	$(PY) -m ingest

ingest-clean: venv ## Rebuild the index from scratch (build-then-switch: the old one serves until then)
	$(PY) -m ingest --clean

models: venv ## Retrain the learned models: card ranker, intents and sentence scorer, answerability, parts, emergencies
	$(PY) -m evaluation.card_ranker
	$(PY) -m evaluation.sentence_scorer
	$(PY) -m evaluation.answerability
	$(PY) -m evaluation.part_model
	$(PY) -m evaluation.emergency_model

eval: venv ## Golden set: card-atomic vs parent-document recall@k, min_similarity sweep, agent, gate
	$(PY) -m evaluation --gate

redteam: venv ## Red-team corpus over real HTTP: extractive, an adversarial model, a meaning-flipping model
	$(PY) -m evaluation.redteam

# Docker, images and the compose stack (mk/docker.mk); benchmarks (mk/bench.mk).
-include mk/docker.mk
-include mk/bench.mk
-include mk/feedback.mk
-include mk/screens.mk
