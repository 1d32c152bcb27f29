#!/bin/sh
# Start PostgreSQL on the data directory $PGDATA (in the volume). At first start, with an
# empty volume: initdb, the role POSTGRES_USER (default cartoes) with POSTGRES_PASSWORD, and
# the database POSTGRES_DB (default feedback). Connections over the network need that
# password (scram-sha-256); the unix socket in /tmp (inside the container only: backups,
# health check) is trusted. The feedback tables are made by the api at its first start (or
# `python -m app.feedback.migrate upgrade`), not here.
# Changing POSTGRES_PASSWORD later does not change the stored one: ALTER ROLE does
# (docs/deployment.md, "Several api replicas").
set -eu
say() { echo "postgres: $*" >&2; }
user=${POSTGRES_USER:-cartoes}
db=${POSTGRES_DB:-feedback}
case "$user$db" in
  *[!A-Za-z0-9_]*) say "POSTGRES_USER and POSTGRES_DB take letters, digits and _ only"; exit 1 ;;
esac

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  [ -n "${POSTGRES_PASSWORD:-}" ] || {
    say "POSTGRES_PASSWORD is empty: set FEEDBACK_DB_PASSWORD in .env (deploy/compose.scale.yaml)"
    exit 1
  }
  say "empty volume: initdb in $PGDATA, role $user, database $db"
  pwfile=$(mktemp)
  printf '%s' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" -E UTF8 --locale=C \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -k /tmp" -w -s start
  createdb -h /tmp -U "$user" "$db"
  pg_ctl -D "$PGDATA" -m fast -w -s stop
fi
say "$(postgres --version), data in $PGDATA"
exec postgres -D "$PGDATA" -c listen_addresses='*' -k /tmp \
  -c password_encryption=scram-sha-256 -c log_line_prefix='%m [%p] ' \
  -c max_connections=${POSTGRES_MAX_CONNECTIONS:-100}
