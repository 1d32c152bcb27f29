#!/bin/sh
# Start nginx with the operator's certificate (/etc/cartoes/tls/cert.pem + key.pem, mounted
# read-only), or, when none is mounted and TLS_SELF_SIGNED=1 (the default), with a
# self-signed one made at first start and kept in /var/lib/cartoes-proxy (trials only:
# browsers warn about it).
# Env: TLS_HOSTNAME (name in the self-signed certificate, default localhost),
# HTTPS_PUBLIC_PORT (the host port HTTP is redirected to, default 443), TLS_SELF_SIGNED;
# UPSTREAM_HOST, UPSTREAM_PORT, UPSTREAM_CHECK_S for the api replicas (upstreams.sh).
set -eu
say() { echo "proxy: $*" >&2; }

cert=/etc/cartoes/tls/cert.pem
key=/etc/cartoes/tls/key.pem
if [ -f "$cert" ] && [ -f "$key" ]; then
  [ -r "$key" ] || { say "cannot read $key as uid $(id -u): make it readable by uid 10001 (chgrp 10001, chmod 640)"; exit 1; }
  say "TLS certificate from $cert ($(openssl x509 -in "$cert" -noout -subject -enddate | tr '\n' ' '))"
elif [ "${TLS_SELF_SIGNED:-1}" = 1 ]; then
  name=${TLS_HOSTNAME:-localhost}
  cert=/var/lib/cartoes-proxy/self-signed-cert.pem
  key=/var/lib/cartoes-proxy/self-signed-key.pem
  if [ ! -f "$cert" ] || [ ! -f "$key" ]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 365 \
      -subj "/CN=$name" -addext "subjectAltName=DNS:$name,DNS:localhost,IP:127.0.0.1" \
      -keyout "$key" -out "$cert" 2>/dev/null
    chmod 600 "$key"
    say "WARNING: no certificate mounted at /etc/cartoes/tls; generated a self-signed one for $name (trials only; browsers will warn)"
  else
    say "WARNING: no certificate mounted at /etc/cartoes/tls; using the self-signed one made at first start"
  fi
else
  say "no certificate: mount cert.pem and key.pem at /etc/cartoes/tls (TLS_DIR) or set TLS_SELF_SIGNED=1"
  exit 1
fi

port=${HTTPS_PUBLIC_PORT:-443}
case "$port" in
  443) suffix= ;;
  *[!0-9]* | '') say "HTTPS_PUBLIC_PORT must be a port number, got '$port'"; exit 1 ;;
  *) suffix=":$port" ;;
esac
sed -e "s#@CERT@#$cert#" -e "s#@KEY@#$key#" -e "s#@HTTPS_SUFFIX@#$suffix#" \
  /etc/nginx/cartoes.conf.template >/tmp/nginx.conf
# The api upstreams: written once before nginx starts, then kept to the ready replicas.
cartoes-upstreams once
nginx -t -q -e stderr -c /tmp/nginx.conf
cartoes-upstreams watch &
exec nginx -e stderr -c /tmp/nginx.conf -g 'daemon off;'
