#!/usr/bin/env bash
# Install what the test suite needs from the host when it is missing; idempotent.
#
#   scripts/test-deps.sh [chromium] [postgresql] [docker]     default: all three
#
#   chromium    Debian's chromium (tests/browser drive it with Playwright; never
#               `playwright install`)
#   postgresql  Debian's postgresql (server binaries only: tests start throwaway servers
#               of their own; nothing is started here)
#   docker      a running Docker engine and the Compose v2 plugin (scripts/docker-engine.sh)
#
# Where a component is missing and cannot be installed (not root and no passwordless
# sudo, or no apt-get), it stops at once with one line naming what is missing and the
# command that installs it. It never lets a test be skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "test-deps: $*"; }
die() { echo "test-deps: $*" >&2; exit 1; }

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  as_root=none
fi

apt_updated=0
# Waits for another apt/dpkg run to finish (DPkg::Lock::Timeout) instead of failing.
apt_install() {  # apt_install WHAT PACKAGE...: install Debian packages or stop with one line
  local what=$1; shift
  if [ "${as_root[*]-}" = none ]; then
    die "$what is missing; install it as root with: sudo apt-get install -y $*"
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    die "$what is missing and this host has no apt-get; install Debian bookworm's package(s) $* (or the equivalent) by hand"
  fi
  if [ "$apt_updated" = 0 ]; then
    "${as_root[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
    apt_updated=1
  fi
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
    install -y -qq --no-install-recommends "$@" >/dev/null
}

timed() {  # timed WHAT COMMAND...: run, then say how long it took
  local what=$1 start; shift
  start=$(date +%s)
  "$@"
  say "$what in $(( $(date +%s) - start )) s"
}

chromium_() {
  local bin=${CHROMIUM_PATH:-/usr/bin/chromium}
  if [ -x "$bin" ]; then
    say "chromium present ($("$bin" --version 2>/dev/null || echo "$bin"))"
    return
  fi
  timed "installed Debian's chromium" apt_install chromium chromium
  say "$(/usr/bin/chromium --version 2>/dev/null || echo chromium)"
}

postgresql_() {
  if compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; then
    say "postgresql server binaries present ($(ls -d /usr/lib/postgresql/*/bin | head -n1))"
    return
  fi
  timed "installed Debian's postgresql (not started)" apt_install postgresql postgresql
}

docker_() {
  if docker info >/dev/null 2>&1 && docker compose version >/dev/null 2>&1; then
    say "docker engine $(docker version --format '{{.Server.Version}}') and compose $(docker compose version --short) present"
    return
  fi
  if [ "${as_root[*]-}" = none ]; then
    if ! command -v dockerd >/dev/null 2>&1; then
      die "no Docker engine; install it as root with: sudo make docker-engine"
    elif ! docker info >/dev/null 2>&1; then
      die "the Docker engine is not running or not yours; start it as root with: sudo make docker-engine (or add yourself to the docker group)"
    else
      die "no Compose v2 plugin; install it as root with: sudo make docker-engine"
    fi
  fi
  if ! command -v dockerd >/dev/null 2>&1 && ! command -v apt-get >/dev/null 2>&1; then
    die "no Docker engine and this host has no apt-get; install Docker Engine 20.10+ and the Compose v2 plugin by hand"
  fi
  timed "Docker engine and Compose plugin ready" "${as_root[@]}" scripts/docker-engine.sh
}

components=("$@")
[ ${#components[@]} -gt 0 ] || components=(chromium postgresql docker)
for c in "${components[@]}"; do
  case "$c" in
    chromium | postgresql | docker) "${c}_" ;;
    *) die "unknown component '$c' (chromium, postgresql, docker)" ;;
  esac
done
