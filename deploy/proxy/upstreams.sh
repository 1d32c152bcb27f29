#!/bin/bash
# Keeps nginx's `api` upstream group to the api replicas that are ready (issue 28).
#
#   cartoes-upstreams once     write /tmp/nginx-upstreams.conf, then exit (before nginx starts)
#   cartoes-upstreams watch    the same every UPSTREAM_CHECK_S seconds (default 2), and
#                              `nginx -s reload` when the list changed
#
# Each round: every address Docker's DNS gives for UPSTREAM_HOST (default api: one per
# replica of `docker compose up --scale api=N`) gets GET /readyz on UPSTREAM_PORT (default
# 8000), with a 2 s limit. The upstream group is the replicas that answered 200 (a replica
# leaves it after UPSTREAM_LEAVE_AFTER failed checks in a row, default 3). When none
# did (the store is down, or every replica is still starting), it is every replica: each
# then answers its own 503 naming the reason, which says more than the proxy could. With
# no replica at all, the group is one address marked down, and the proxy answers 503
# api_unavailable. A reload is graceful: requests in flight finish on the old workers.
# Open-source nginx has no active health checks; this is the small loop that stands in.
set -u
conf=/tmp/nginx-upstreams.conf
host=${UPSTREAM_HOST:-api}
port=${UPSTREAM_PORT:-8000}
every=${UPSTREAM_CHECK_S:-2}
LEAVE_AFTER=${UPSTREAM_LEAVE_AFTER:-3}
say() { echo "proxy: $*" >&2; }

declare -A misses  # address -> failed checks in a row

ready() {  # ready ADDRESS: GET /readyz answered 200 within 2 s
  timeout 2 bash -c '
    exec 3<>"/dev/tcp/$0/$1" || exit 1
    printf "GET /readyz HTTP/1.0\r\nHost: %s\r\n\r\n" "$0" >&3
    IFS= read -r status <&3 || exit 1
    case $status in "HTTP/1."?" 200 "*) exit 0 ;; *) exit 1 ;; esac' "$1" "$port" 2>/dev/null
}

render() {  # sets $servers: the upstream lines, one per replica in the group
  local addresses address up=()
  addresses=$(getent ahostsv4 "$host" 2>/dev/null | awk '{print $1}' | sort -u)
  for address in $addresses; do
    if ready "$address"; then
      misses[$address]=0
    else
      misses[$address]=$(( ${misses[$address]:-$LEAVE_AFTER} + 1 ))
    fi
    # A replica joins at its first 200 and leaves after LEAVE_AFTER failed checks in a row:
    # one slow answer under load does not take it out (each change reloads nginx). A
    # replica that is gone leaves at once, with its DNS entry; until then nginx's own
    # max_fails skips it, and the requests it failed are retried on another.
    if [ "${misses[$address]}" -lt "$LEAVE_AFTER" ]; then up+=("$address"); fi
  done
  if [ ${#up[@]} -eq 0 ]; then
    # shellcheck disable=SC2206
    up=($addresses)
  fi
  if [ ${#up[@]} -eq 0 ]; then
    servers="server 127.0.0.1:$port down;  # no $host replica resolves"
    return
  fi
  servers=""
  for address in "${up[@]}"; do
    servers+="server $address:$port max_fails=1 fail_timeout=5s;"$'\n'
  done
  servers=${servers%$'\n'}
}

update() {  # writes the file; true when it changed
  render
  if [ -f "$conf" ] && [ "$servers" = "$(cat "$conf")" ]; then
    return 1
  fi
  printf '%s\n' "$servers" >"$conf.new" && mv "$conf.new" "$conf"
  say "api upstreams: $(grep -o '^server [^ ]*' "$conf" | cut -d' ' -f2 | tr '\n' ' ')"
  return 0
}

case "${1:-watch}" in
  once)
    update || true
    ;;
  watch)
    while sleep "$every"; do
      if update; then
        nginx -e stderr -c /tmp/nginx.conf -s reload || say "nginx reload failed"
      fi
    done
    ;;
  *)
    say "usage: cartoes-upstreams once|watch"
    exit 2
    ;;
esac
