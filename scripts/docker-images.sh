#!/usr/bin/env bash
# Build the api, ingest and chroma images (`docker compose build`), through whichever path
# this host allows:
#   online      python:3.11-slim is present or can be pulled: BASE_IMAGE=python:3.11-slim,
#               PIP_SOURCE=index (PyPI, torch from PyTorch's CPU index);
#   air-gapped  it cannot: BASE_IMAGE=cartoes-base:bookworm made by scripts/base-image.sh
#               (debootstrap), PIP_SOURCE=wheelhouse made by scripts/wheels.sh on the host.
# Setting BASE_IMAGE and/or PIP_SOURCE forces a choice. Extra arguments go to
# `docker compose build` (e.g. --no-cache, or service names). Rebuilds are incremental.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "images: $*"; }

ONLINE_BASE=python:3.11-slim
AIRGAP_BASE=${AIRGAP_BASE_IMAGE:-cartoes-base:bookworm}

if [ -z "${BASE_IMAGE:-}" ]; then
  if docker image inspect "$ONLINE_BASE" >/dev/null 2>&1; then
    BASE_IMAGE=$ONLINE_BASE
  elif timeout 120 docker pull -q "$ONLINE_BASE" >/dev/null 2>&1; then
    say "pulled $ONLINE_BASE"
    BASE_IMAGE=$ONLINE_BASE
  else
    say "cannot pull $ONLINE_BASE (no registry): air-gapped path"
    scripts/base-image.sh "$AIRGAP_BASE"
    BASE_IMAGE=$AIRGAP_BASE
    : "${PIP_SOURCE:=wheelhouse}"
  fi
fi
PIP_SOURCE=${PIP_SOURCE:-index}
if [ "$PIP_SOURCE" = wheelhouse ]; then
  scripts/wheels.sh wheels
fi
export BASE_IMAGE PIP_SOURCE
say "docker compose build (BASE_IMAGE=$BASE_IMAGE PIP_SOURCE=$PIP_SOURCE${EMBEDDING_MODEL:+ EMBEDDING_MODEL=$EMBEDDING_MODEL})"
start=$(date +%s)
COMPOSE_BAKE=false docker compose --progress "${BUILD_PROGRESS:-quiet}" build "$@"
say "built in $(( $(date +%s) - start )) s"
docker images --format 'table {{.Repository}}:{{.Tag}}\t{{.ID}}\t{{.Size}}' \
  | grep -E "^(REPOSITORY|${IMAGE_PREFIX:-cartoes}-(api|ingest|chroma):${IMAGE_TAG:-latest})"
