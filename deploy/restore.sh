#!/usr/bin/env bash
# Restore the stack's state from a backup made by deploy/backup.sh: the Chroma volume (the
# index) and the feedback volume. Replaces what they hold now.
#
#   deploy/restore.sh BACKUP_DIR/cartoes-<UTC time>     (chroma.tar.gz + feedback.tar.gz,
#                                                        or + feedback.pgdump: PostgreSQL)
#   deploy/restore.sh chroma-<UTC time>.tar.gz          (an older index-only backup)
#
# The API answers 503 while chroma is down; it is stopped while the feedback volume (or the
# PostgreSQL database, with pg_restore --clean) is replaced and started again if it was
# running, with as many replicas as were running. Works on an existing stack and on one
# whose volumes were lost (`docker compose down -v`): the volumes are created. Then start
# the API (if it was not running) without ingest: `docker compose up -d --wait --no-deps api`.
# Env: COMPOSE_PROJECT_NAME, COMPOSE_FILES as for deploy/backup.sh.
set -euo pipefail
src=${1:?usage: deploy/restore.sh BACKUP_DIR/cartoes-<time> (or an old chroma-<time>.tar.gz)}
src=$(cd "$(dirname "$src")" && pwd)/$(basename "$src")
feedback_dump=
if [ -d "$src" ]; then
  chroma_archive=$src/chroma.tar.gz feedback_archive=$src/feedback.tar.gz
  if [ -f "$src/feedback.pgdump" ]; then
    feedback_archive= feedback_dump=$src/feedback.pgdump
  fi
else
  chroma_archive=$src feedback_archive=
fi
for a in "$chroma_archive" $feedback_archive; do
  [ -f "$a" ] || { echo "restore: no such file: $a" >&2; exit 1; }
  tar -tzf "$a" >/dev/null || { echo "restore: not a readable tar.gz: $a" >&2; exit 1; }
done
if [ -n "$feedback_dump" ] && [ "$(head -c 5 "$feedback_dump")" != PGDMP ]; then
  echo "restore: not a pg_dump custom-format file: $feedback_dump" >&2
  exit 1
fi
cd "$(dirname "$0")/.."
read -r -a files <<<"${COMPOSE_FILES:--f compose.yaml}"
dc() { docker compose "${files[@]}" "$@"; }
say() { echo "restore: $*"; }
# The data stays owned by the images' non-root user (uid 10001). The capabilities are
# needed where deploy/compose.prod.yaml drops them all. If a step fails, the service it
# touched stays stopped: its volume may be half-replaced; run the restore again.
REPLACE='find "$0" -mindepth 1 -delete && tar -C "$0" -xzf /backup.tar.gz && chown -R 10001:10001 "$0"'
root=(run --rm --no-deps --user 0 --cap-add DAC_OVERRIDE --cap-add FOWNER --cap-add CHOWN)

services=$(dc config --services)
has_postgres=$(grep -x postgres <<<"$services" || true)
if [ -n "$feedback_dump" ] && [ -z "$has_postgres" ]; then
  echo "restore: $(basename "$src") holds a PostgreSQL dump, but this stack has no postgres" \
    "service: add deploy/compose.scale.yaml to COMPOSE_FILES" >&2
  exit 1
fi
if [ -n "$feedback_archive" ] && [ -n "$has_postgres" ]; then
  echo "restore: $(basename "$src") holds a SQLite feedback volume, but this stack keeps" \
    "feedback in postgres: restore it without deploy/compose.scale.yaml" >&2
  exit 1
fi

api_running=$(dc ps -q --status running api | wc -l)
[ "$api_running" != 0 ] || api_running=
if [ -n "$feedback_dump" ]; then
  [ -z "$api_running" ] || { say "stopping the api ($api_running replica(s))"; dc stop api; }
  say "starting postgres (an empty volume gets an empty database)"
  dc up -d --wait --no-build --no-deps postgres
  say "replacing the feedback database with $(basename "$src")/feedback.pgdump"
  dc exec -T postgres pg_restore -h /tmp -U cartoes -d feedback --clean --if-exists \
    --no-owner --single-transaction --exit-on-error <"$feedback_dump"
fi
if [ -n "$feedback_archive" ]; then
  [ -z "$api_running" ] || { say "stopping the api"; dc stop api; }
  say "replacing the feedback volume's contents with $(basename "$src")/feedback.tar.gz"
  dc "${root[@]}" -v "$feedback_archive:/backup.tar.gz:ro" --entrypoint sh api \
    -c "$REPLACE" /var/lib/cartoes/feedback
fi

[ -z "$(dc ps -q --status running chroma)" ] || { say "stopping chroma"; dc stop chroma; }
say "replacing the chroma volume's contents with $(basename "$chroma_archive")"
dc "${root[@]}" -v "$chroma_archive:/backup.tar.gz:ro" chroma sh -c "$REPLACE" /data
say "starting chroma"
dc up -d --wait --no-build chroma

if [ -n "$api_running" ]; then
  if [ -n "$feedback_archive$feedback_dump" ]; then
    say "starting the api"
    dc up -d --wait --no-build --no-deps --scale "api=$api_running" api
  else
    say "the running API picks the restored index up by itself; /readyz tells when"
  fi
else
  say "start the API, without ingest: docker compose up -d --wait --no-deps api"
fi
