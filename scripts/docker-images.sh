#!/usr/bin/env bash
# Build the api, ingest, chroma, proxy and postgres images (`docker compose build`), through
# whichever path this host allows, and only when their sources changed:
#   online      python:3.11-slim is present or can be pulled: BASE_IMAGE=python:3.11-slim,
#               PIP_SOURCE=index (PyPI, torch from PyTorch's CPU index), and the proxy and
#               postgres images on debian:bookworm-slim with nginx or postgresql from apt;
#   air-gapped  it cannot: BASE_IMAGE=cartoes-base:bookworm made by scripts/base-image.sh
#               (debootstrap), PIP_SOURCE=wheelhouse made by scripts/wheels.sh on the host,
#               the proxy on cartoes-proxy-base:bookworm (debootstrap --include=nginx) and
#               postgres on cartoes-postgres-base:bookworm (--include=postgresql).
# Setting BASE_IMAGE and/or PIP_SOURCE (and PROXY_BASE_IMAGE, POSTGRES_BASE_IMAGE) forces a
# choice.
#
# Reuse: every image carries the label org.cartoes.context-hash, a hash of what its build
# reads (Dockerfiles, .dockerignore, requirements.txt, app/, ingest/, kb/, deploy/proxy/,
# deploy/postgres/, the wheelhouse's file list, the base images' ids, the build
# arguments). When all five
# images carry the current hash, nothing is built. FORCE=1 builds anyway; extra arguments
# go to `docker compose build` (e.g. --no-cache, or service names) and imply a build.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "images: $*"; }

ONLINE_BASE=python:3.11-slim
ONLINE_PROXY_BASE=debian:bookworm-slim
AIRGAP_BASE=${AIRGAP_BASE_IMAGE:-cartoes-base:bookworm}
AIRGAP_PROXY_BASE=${AIRGAP_PROXY_BASE_IMAGE:-cartoes-proxy-base:bookworm}
AIRGAP_POSTGRES_BASE=${AIRGAP_POSTGRES_BASE_IMAGE:-cartoes-postgres-base:bookworm}
PREFIX=${IMAGE_PREFIX:-cartoes}
TAG=${IMAGE_TAG:-latest}
IMAGES=("$PREFIX-api:$TAG" "$PREFIX-ingest:$TAG" "$PREFIX-chroma:$TAG" "$PREFIX-proxy:$TAG"
  "$PREFIX-postgres:$TAG")
LABEL=org.cartoes.context-hash
# The prod file adds the proxy, the scale file postgres (its password is not needed to build).
files=(-f compose.yaml -f deploy/compose.prod.yaml -f deploy/compose.scale.yaml)
export FEEDBACK_DB_PASSWORD=${FEEDBACK_DB_PASSWORD:-unused-at-build}

have_image() { docker image inspect "$1" >/dev/null 2>&1; }
bases=()  # "IMAGE|PACKAGES" of the debootstrap bases to make (base-image.sh's default: empty)

if [ -z "${BASE_IMAGE:-}" ]; then
  if have_image "$ONLINE_BASE"; then
    BASE_IMAGE=$ONLINE_BASE
  elif timeout 120 docker pull -q "$ONLINE_BASE" >/dev/null 2>&1; then
    say "pulled $ONLINE_BASE"
    BASE_IMAGE=$ONLINE_BASE
  else
    say "cannot pull $ONLINE_BASE (no registry): air-gapped path"
    bases+=("$AIRGAP_BASE|")
    BASE_IMAGE=$AIRGAP_BASE
    : "${PIP_SOURCE:=wheelhouse}"
    : "${PROXY_BASE_IMAGE:=$AIRGAP_PROXY_BASE}"
    : "${POSTGRES_BASE_IMAGE:=$AIRGAP_POSTGRES_BASE}"
  fi
fi
if [ -z "${PROXY_BASE_IMAGE:-}" ]; then
  if [ "$BASE_IMAGE" = "$ONLINE_BASE" ] \
     && { have_image "$ONLINE_PROXY_BASE" || timeout 120 docker pull -q "$ONLINE_PROXY_BASE" >/dev/null 2>&1; }; then
    PROXY_BASE_IMAGE=$ONLINE_PROXY_BASE
  else
    PROXY_BASE_IMAGE=$AIRGAP_PROXY_BASE
  fi
fi
if [ "$PROXY_BASE_IMAGE" = "$AIRGAP_PROXY_BASE" ]; then
  bases+=("$AIRGAP_PROXY_BASE|nginx,openssl,ca-certificates")
fi
if [ -z "${POSTGRES_BASE_IMAGE:-}" ]; then  # the same choice as the proxy's
  if [ "$PROXY_BASE_IMAGE" = "$ONLINE_PROXY_BASE" ]; then
    POSTGRES_BASE_IMAGE=$ONLINE_PROXY_BASE
  else
    POSTGRES_BASE_IMAGE=$AIRGAP_POSTGRES_BASE
  fi
fi
if [ "$POSTGRES_BASE_IMAGE" = "$AIRGAP_POSTGRES_BASE" ]; then
  bases+=("$AIRGAP_POSTGRES_BASE|postgresql,ca-certificates")
fi
PIP_SOURCE=${PIP_SOURCE:-index}

# The debootstrap bases and the wheelhouse do not depend on each other: they are made at
# once, each one's output printed when it ends. One after the other they took 99, 98, 132
# and 116 s on a fresh host (2026-12-06), mostly dpkg unpacking and downloads. A base that
# exists is not made again (base-image.sh), nor a current wheelhouse (wheels.sh).
pids=() logs=()
start_job() {  # start_job COMMAND...: in the background, output to a file of its own
  local log
  log=$(mktemp)
  "$@" >"$log" 2>&1 &
  pids+=($!) logs+=("$log")
}
for spec in "${bases[@]}"; do
  packages=${spec#*|}
  start_job env ${packages:+PACKAGES="$packages"} scripts/base-image.sh "${spec%%|*}"
done
if [ "$PIP_SOURCE" = wheelhouse ]; then
  start_job scripts/wheels.sh wheels
fi
failed=0
for i in "${!pids[@]}"; do
  if wait "${pids[$i]}"; then cat "${logs[$i]}"; else cat "${logs[$i]}" >&2; failed=1; fi
  rm -f "${logs[$i]}"
done
if [ "$failed" != 0 ]; then
  say "a base image or the wheelhouse could not be made (its output is above)" >&2
  exit 1
fi
export BASE_IMAGE PIP_SOURCE PROXY_BASE_IMAGE POSTGRES_BASE_IMAGE

context_hash() {
  {
    echo "BASE_IMAGE=$BASE_IMAGE $(docker image inspect -f '{{.Id}}' "$BASE_IMAGE" 2>/dev/null || true)"
    echo "PROXY_BASE_IMAGE=$PROXY_BASE_IMAGE $(docker image inspect -f '{{.Id}}' "$PROXY_BASE_IMAGE" 2>/dev/null || true)"
    echo "POSTGRES_BASE_IMAGE=$POSTGRES_BASE_IMAGE $(docker image inspect -f '{{.Id}}' "$POSTGRES_BASE_IMAGE" 2>/dev/null || true)"
    echo "PIP_SOURCE=$PIP_SOURCE EMBEDDING_MODEL=${EMBEDDING_MODEL:-} TORCH_INDEX_URL=${TORCH_INDEX_URL:-}"
    find Dockerfile .dockerignore requirements.txt app ingest kb deploy/proxy deploy/postgres -type f \
      ! -path '*/__pycache__/*' ! -name '*.pyc' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
    # Wheels are versioned files: name and size identify them.
    if [ "$PIP_SOURCE" = wheelhouse ]; then
      find wheels -maxdepth 1 -type f -printf '%f %s\n' | LC_ALL=C sort
    fi
  } | sha256sum | cut -c1-16
}

CONTEXT_HASH=$(context_hash)
export CONTEXT_HASH
if [ "${FORCE:-0}" != 1 ] && [ $# -eq 0 ]; then
  current=1
  for image in "${IMAGES[@]}"; do
    got=$(docker image inspect -f "{{index .Config.Labels \"$LABEL\"}}" "$image" 2>/dev/null || true)
    [ "$got" = "$CONTEXT_HASH" ] || { current=0; break; }
  done
  if [ "$current" = 1 ]; then
    say "images are current (context hash $CONTEXT_HASH): nothing to build (FORCE=1 rebuilds)"
    exit 0
  fi
fi

say "docker compose build (BASE_IMAGE=$BASE_IMAGE PIP_SOURCE=$PIP_SOURCE PROXY_BASE_IMAGE=$PROXY_BASE_IMAGE POSTGRES_BASE_IMAGE=$POSTGRES_BASE_IMAGE${EMBEDDING_MODEL:+ EMBEDDING_MODEL=$EMBEDDING_MODEL}, context hash $CONTEXT_HASH)"
start=$(date +%s)
COMPOSE_BAKE=false docker compose "${files[@]}" --progress "${BUILD_PROGRESS:-quiet}" build "$@"
say "built in $(( $(date +%s) - start )) s"
docker images --format 'table {{.Repository}}:{{.Tag}}\t{{.ID}}\t{{.Size}}' \
  | grep -E "^(REPOSITORY|$PREFIX-(api|ingest|chroma|proxy|postgres):$TAG)"
