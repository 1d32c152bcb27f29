#!/usr/bin/env bash
# Back up the stack's state: the Chroma volume (the index) and the feedback volume.
#
#   deploy/backup.sh [BACKUP_DIR]          default: ./backups
#
# Writes BACKUP_DIR/cartoes-<UTC time>/ with chroma.tar.gz and the feedback: feedback.tar.gz
# (the SQLite volume), or feedback.pgdump when the stack has the postgres service of
# deploy/compose.scale.yaml (pg_dump's custom format). Restore it with
# deploy/restore.sh BACKUP_DIR/cartoes-<UTC time>.
#
# Chroma has no online snapshot, so its copy is taken with the chroma container stopped:
# a few seconds during which /readyz and /api/ask answer 503 (the API keeps running and
# recovers by itself). The feedback store is copied while the API runs: SQLite files
# through SQLite's online backup (a consistent copy), any other file as it is; PostgreSQL
# with pg_dump, one consistent snapshot while replicas keep writing. The copies
# are made by one-off containers (`docker compose run`), so no volume name or host path
# needs to be known. Env: COMPOSE_PROJECT_NAME (default: the project name in compose.yaml),
# COMPOSE_FILES (e.g. "-f compose.yaml -f deploy/compose.prod.yaml").
set -euo pipefail
cd "$(dirname "$0")/.."
BACKUP_ROOT=$(mkdir -p "${1:-backups}" && cd "${1:-backups}" && pwd)
read -r -a files <<<"${COMPOSE_FILES:--f compose.yaml}"
dc() { docker compose "${files[@]}" "$@"; }
say() { echo "backup: $*"; }

start=$(date +%s)
dest="$BACKUP_ROOT/cartoes-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$dest"

# 1. Feedback, while the API runs. The service list is read whole before it is searched:
# `compose config | grep -q` under pipefail fails at random when grep exits first (SIGPIPE).
services=$(dc config --services)
if grep -qx postgres <<<"$services"; then
  [ -n "$(dc ps -q --status running postgres)" ] || {
    say "the postgres service is not running: start it (docker compose up -d --wait postgres)" >&2
    exit 1
  }
  dc exec -T postgres pg_dump -h /tmp -U cartoes -d feedback --format=custom >"$dest/feedback.pgdump"
  feedback_copy=feedback.pgdump
else
COPY_FEEDBACK='
import pathlib, shutil, sqlite3
src, out = pathlib.Path("/var/lib/cartoes/feedback"), pathlib.Path("/tmp/feedback-copy")
shutil.rmtree(out, ignore_errors=True)
out.mkdir()
for path in sorted(src.rglob("*")):
    target = out / path.relative_to(src)
    if path.is_dir():
        target.mkdir(exist_ok=True)
    elif path.suffix in (".db", ".sqlite", ".sqlite3"):
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db, sqlite3.connect(target) as copy:
            db.backup(copy)
    elif not path.name.endswith(("-wal", "-shm", "-journal")):
        shutil.copy2(path, target)
'
dc run --rm --no-deps --user 0 --cap-add DAC_OVERRIDE -v "$dest:/backup" --entrypoint sh api \
  -c "python -c '$COPY_FEEDBACK' && tar -C /tmp/feedback-copy -czf /backup/feedback.tar.gz ." >/dev/null
  feedback_copy=feedback.tar.gz
fi
say "feedback copied ($feedback_copy, $(du -h "$dest/$feedback_copy" | cut -f1))"

# 2. The index, with chroma stopped.
was_running=$(dc ps -q --status running chroma)
if [ -n "$was_running" ]; then
  say "stopping chroma for a consistent copy"
  dc stop chroma
fi
restart() { if [ -n "$was_running" ]; then say "starting chroma"; dc start chroma >/dev/null; fi; }
trap restart EXIT
dc run --rm --no-deps --user 0 --cap-add DAC_OVERRIDE -v "$dest:/backup" chroma \
  tar -C /data -czf /backup/chroma.tar.gz .
trap - EXIT
restart
if [ -n "$was_running" ]; then
  for _ in $(seq 1 60); do
    [ "$(docker inspect -f '{{.State.Health.Status}}' "$(dc ps -q chroma)")" = healthy ] && break
    sleep 1
  done
  say "chroma is $(docker inspect -f '{{.State.Health.Status}}' "$(dc ps -q chroma)")"
fi
say "wrote $dest (chroma.tar.gz $(du -h "$dest/chroma.tar.gz" | cut -f1), $feedback_copy $(du -h "$dest/$feedback_copy" | cut -f1)) in $(( $(date +%s) - start )) s"
