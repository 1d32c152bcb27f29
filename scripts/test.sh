#!/usr/bin/env bash
# `make test`: the whole suite on a fresh machine or a prepared one. In order, each step
# timed, the first failure stops it:
#   venv    scripts/bootstrap.sh (CPU-only torch, pinned dependencies; nothing when current)
#   deps    scripts/test-deps.sh: Debian's chromium and postgresql, a Docker engine and the
#           Compose v2 plugin, each installed only when missing (one clear line and a stop
#           where that is impossible: no root, no apt-get)
#   lint    make lint (ruff check, ruff format --check, mypy)
#   images  scripts/docker-images.sh: built only when their sources changed
#   pytest  every test (unit, integration, eval, browser, compose); none is skipped; the
#           compose tests run beside the others (see run_pytest)
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
# With no test path given, the suite runs in two lanes at once: the compose tests (mostly
# waiting on containers) in one, the browser, unit, eval and integration tests in the
# other; the compose lane's output is printed when both have ended. With a path
# (`make test PYTEST_ARGS=tests/unit/...`) pytest runs once, as given.
run_pytest() {
  local arg
  # One thread per process for the embedding and for numpy's BLAS: the lanes and the
  # services the tests start share the cores, and two threads fighting for them are slower
  # than one (gunicorn_conf.py already does this for its workers). The golden set asked
  # in-process (2026-12-06): with 2 embedding threads 23.4 s, with 1 20.4 s on a quiet host
  # (84.6 s and 70.2 s with two CPU-bound loops beside it); then with OpenBLAS at 2 threads
  # 46.0 s (85.5 s of CPU), at 1 thread 21.0 s (40.0 s of CPU), with a pip install beside it.
  export TORCH_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
  for arg in "$@"; do
    case $arg in tests/*|tests) "$PY" -m pytest "$@"; return;; esac
  done
  local lane rc=0 lane_rc=0
  lane=$(mktemp)
  # Its own temporary directory and no cache writes: two pytest sessions run at once.
  # --durations: each lane ends with its slowest tests, so a CI log says where the time goes.
  "$PY" -m pytest tests/compose -p no:cacheprovider --basetemp="$(mktemp -d)" --durations=15 \
    "$@" >"$lane" 2>&1 &
  local pid=$!
  "$PY" -m pytest tests/browser tests/unit tests/eval tests/integration --durations=25 "$@" || rc=$?
  wait "$pid" || lane_rc=$?
  echo "=== make test: tests/compose (ran alongside; exit $lane_rc)"
  cat "$lane"
  rm -f "$lane"
  [ "$rc" = 0 ] && [ "$lane_rc" = 0 ]
}
step pytest run_pytest "$@"
echo "=== make test: passed in $(( $(date +%s) - t0 )) s ($(IFS=,; echo "${times[*]}"))"
