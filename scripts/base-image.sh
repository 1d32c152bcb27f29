#!/usr/bin/env bash
# Build a minimal Debian bookworm base image with debootstrap and `docker import`, for
# hosts that cannot pull python:3.11-slim (or debian:bookworm-slim) from a container
# registry. Idempotent: does nothing when the image already exists.
#
#   scripts/base-image.sh [IMAGE]      default IMAGE: cartoes-base:bookworm
#
# Env: PACKAGES, what --include adds to minbase (default: python3,python3-venv,
# ca-certificates for the app images; scripts/docker-images.sh asks for
# nginx,openssl,ca-certificates for the proxy image), DEBIAN_MIRROR (default: the first
# deb.debian.org-style URI of this host's apt sources, else http://deb.debian.org/debian),
# FORCE=1 rebuilds. Needs root.
set -euo pipefail

IMAGE=${1:-${AIRGAP_BASE_IMAGE:-cartoes-base:bookworm}}
SUITE=bookworm
PACKAGES=${PACKAGES:-python3,python3-venv,ca-certificates}
say() { echo "base-image: $*"; }

if [ "${FORCE:-0}" != 1 ] && docker image inspect "$IMAGE" >/dev/null 2>&1; then
  say "$IMAGE already exists (FORCE=1 rebuilds)"
  exit 0
fi
# scripts/docker-images.sh makes its bases at once: one installs debootstrap, the others wait.
exec 9>"${TMPDIR:-/tmp}/cartoes-debootstrap-install.lock"
flock 9
if ! command -v debootstrap >/dev/null 2>&1; then
  say "installing debootstrap with apt-get"
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq debootstrap >/dev/null
fi
flock -u 9
if [ -z "${DEBIAN_MIRROR:-}" ]; then
  DEBIAN_MIRROR=$(grep -rhoE 'https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null \
    | head -n1 | tr -d ' ' || true)
  DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
fi

root=$(mktemp -d /tmp/base-image.XXXXXX)
trap 'rm -rf "$root"' EXIT
say "debootstrap --variant=minbase --include=$PACKAGES $SUITE from $DEBIAN_MIRROR into $root"
start=$(date +%s)
debootstrap --variant=minbase --include="$PACKAGES" \
  "$SUITE" "$root" "$DEBIAN_MIRROR" >"$root.log" 2>&1 \
  || { tail -n 30 "$root.log" >&2; exit 1; }
rm -f "$root.log"
# Trim what a container never needs: apt lists and caches, docs, man pages, locales.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
  "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* \
  "$root"/usr/share/locale/* "$root"/var/log/*.log
say "docker import -> $IMAGE"
tar -C "$root" -c . | docker import \
  -c 'ENV LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  -c 'CMD ["bash"]' \
  -m "debootstrap --variant=minbase $SUITE --include=$PACKAGES" \
  - "$IMAGE" >/dev/null
say "built $IMAGE in $(( $(date +%s) - start )) s ($(docker run --rm "$IMAGE" \
  dpkg-query -W -f '${Package} ${Version}; ' ${PACKAGES//,/ }))"
