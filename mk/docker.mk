# Docker images and the compose stack. Included by the Makefile; see docs/deployment.md.
# Variables: COMPOSE (the compose command), COMPOSE_FILES (-f ... for an override, e.g.
# COMPOSE_FILES="-f compose.yaml -f deploy/compose.prod.yaml"), BASE_IMAGE, PIP_SOURCE.

COMPOSE ?= docker compose
COMPOSE_FILES ?=
DC := $(COMPOSE) $(COMPOSE_FILES)
# What `up` waits for: the TLS proxy with the production override, else the api.
UP_SERVICE := $(if $(findstring compose.prod.yaml,$(COMPOSE_FILES)),proxy,api)

.PHONY: docker-engine base-image wheels images up down logs compose-test

docker-engine: ## Install/start a Docker engine and the Compose v2 plugin when missing
	@scripts/docker-engine.sh

base-image: ## Air-gapped: build a minimal Debian bookworm base image with debootstrap
	@scripts/base-image.sh

wheels: ## Air-gapped: download the host-side wheelhouse (CPU torch included) into wheels/
	@scripts/wheels.sh

images: ## Build the api, ingest, chroma and proxy images when their sources changed (online or air-gapped)
	@scripts/docker-images.sh

up: images ## Start the stack (chroma, ingest, api; + proxy with the prod override) and wait until ready
	$(DC) up -d --wait $(UP_SERVICE)
	@$(DC) ps -a
	@if [ "$(UP_SERVICE)" = proxy ]; then echo "API: https://$${TLS_HOSTNAME:-localhost}:$${HTTPS_PORT:-443}/"; \
	 else echo "API: http://$${API_BIND:-127.0.0.1}:$${API_PORT:-8000}/"; fi

down: ## Stop the stack (keeps the index volume; add -v by hand to drop it)
	$(DC) --profile maintenance down

logs: ## Follow the stack's logs
	$(DC) logs -f --tail=100

compose-test: venv ## Integration tests of the real stack (tests/compose; builds images first)
	@scripts/test-deps.sh docker
	$(PY) -m pytest -m compose tests/compose
