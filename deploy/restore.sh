#!/usr/bin/env bash
# Restore the Chroma volume from an archive made by deploy/backup.sh. Replaces the
# current index with the archived one; the API answers 503 until chroma is back.
#
#   deploy/restore.sh BACKUP.tar.gz
#
# Env: COMPOSE_PROJECT_NAME, COMPOSE_FILES as for deploy/backup.sh.
set -euo pipefail
archive=${1:?usage: deploy/restore.sh BACKUP.tar.gz}
archive=$(cd "$(dirname "$archive")" && pwd)/$(basename "$archive")
[ -f "$archive" ] || { echo "restore: no such file: $archive" >&2; exit 1; }
tar -tzf "$archive" >/dev/null || { echo "restore: not a readable tar.gz: $archive" >&2; exit 1; }
cd "$(dirname "$0")/.."
read -r -a files <<<"${COMPOSE_FILES:--f compose.yaml}"
dc() { docker compose "${files[@]}" "$@"; }
say() { echo "restore: $*"; }

was_running=$(dc ps -q --status running chroma)
[ -z "$was_running" ] || { say "stopping chroma"; dc stop chroma; }
say "replacing the volume's contents with $(basename "$archive")"
# The data stays owned by the image's non-root user (uid 10001). The capabilities are
# needed where deploy/compose.prod.yaml drops them all. If this step fails, chroma stays
# stopped: the volume may be half-replaced; run the restore again.
dc run --rm --no-deps --user 0 --cap-add DAC_OVERRIDE --cap-add FOWNER --cap-add CHOWN \
  -v "$archive:/backup.tar.gz:ro" chroma \
  sh -c 'find /data -mindepth 1 -delete && tar -C /data -xzf /backup.tar.gz && chown -R 10001:10001 /data'
say "starting chroma"
dc up -d --wait --no-build chroma
if [ -n "$(dc ps -q --status running api)" ]; then
  say "the running API picks the restored index up by itself; /readyz tells when"
else
  say "start the API with: docker compose up -d --wait api"
fi
