#!/usr/bin/env bash
# `make test`: the whole suite on a fresh machine or a prepared one. In order, each step
# timed, the first failure stops it:
#   venv    scripts/bootstrap.sh (CPU-only torch, pinned dependencies; nothing when current)
#   deps    scripts/test-deps.sh: Debian's chromium and postgresql, a Docker engine and the
#           Compose v2 plugin, each installed only when missing (one clear line and a stop
#           where that is impossible: no root, no apt-get)
#   lint    make lint (ruff check, ruff format --check, mypy)
#   images  scripts/docker-images.sh: built only when their sources changed
#   pytest  every test (unit, integration, eval, browser, compose); none is skipped
# Extra arguments go to pytest. Run by `make test` (which exports PYTHONPATH and
# HF_HUB_OFFLINE) and by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${VENV:-.venv}/bin/python
times=()
step() {  # step NAME COMMAND...
  local name=$1 start rc=0; shift
  echo "=== make test: $name ($(date -u +%H:%M:%S))"
  start=$(date +%s)
  "$@" || rc=$?
  times+=("$name $(( $(date +%s) - start )) s")
  if [ "$rc" != 0 ]; then
    echo "=== make test: $name failed (exit $rc); times: ${times[*]/%/,}" >&2
    exit "$rc"
  fi
}

t0=$(date +%s)
step venv scripts/bootstrap.sh
step deps scripts/test-deps.sh
step lint make --no-print-directory lint
step images scripts/docker-images.sh
step pytest "$PY" -m pytest "$@"
echo "=== make test: passed in $(( $(date +%s) - t0 )) s ($(IFS=,; echo "${times[*]}"))"
