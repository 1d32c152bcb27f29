#!/usr/bin/env bash
# Back up the Chroma volume (the index) to a tar.gz.
#
#   deploy/backup.sh [BACKUP_DIR]          default: ./backups
#
# Chroma has no online snapshot, so the copy is taken with the chroma container stopped:
# a few seconds (7.4 s for the whole backup here) during which /readyz and /api/ask answer 503 (the API itself keeps running
# and recovers by itself). The archive is made by a one-off container of the chroma image
# (`docker compose run`), so no volume name or host path needs to be known.
# Env: COMPOSE_PROJECT_NAME (default: the project name in compose.yaml), COMPOSE_FILES
# (e.g. "-f compose.yaml -f deploy/compose.prod.yaml").
set -euo pipefail
cd "$(dirname "$0")/.."
BACKUP_DIR=$(mkdir -p "${1:-backups}" && cd "${1:-backups}" && pwd)
read -r -a files <<<"${COMPOSE_FILES:--f compose.yaml}"
dc() { docker compose "${files[@]}" "$@"; }
say() { echo "backup: $*"; }

name="chroma-$(date -u +%Y%m%dT%H%M%SZ).tar.gz"
was_running=$(dc ps -q --status running chroma)
if [ -n "$was_running" ]; then
  say "stopping chroma for a consistent copy"
  dc stop chroma
fi
restart() { if [ -n "$was_running" ]; then say "starting chroma"; dc start chroma >/dev/null; fi; }
trap restart EXIT
dc run --rm --no-deps --user 0 --cap-add DAC_OVERRIDE -v "$BACKUP_DIR:/backup" chroma \
  tar -C /data -czf "/backup/$name" .
trap - EXIT
restart
if [ -n "$was_running" ]; then
  for _ in $(seq 1 60); do
    [ "$(docker inspect -f '{{.State.Health.Status}}' "$(dc ps -q chroma)")" = healthy ] && break
    sleep 1
  done
  say "chroma is $(docker inspect -f '{{.State.Health.Status}}' "$(dc ps -q chroma)")"
fi
say "wrote $BACKUP_DIR/$name ($(du -h "$BACKUP_DIR/$name" | cut -f1))"
