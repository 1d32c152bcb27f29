#!/usr/bin/env bash
# Re-vendor axe-core into tests/browser/vendor/ from its npm package (the browser tests
# inject that copy; nothing is fetched when they run). Usage: scripts/vendor-axe.sh [VERSION]
# (default: the version in tests/browser/vendor/AXE_VERSION). Needs npm and network.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=tests/browser/vendor
version="${1:-$(cat "$dest/AXE_VERSION")}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "axe-core@$version" >/dev/null)
tar -xzf "$tmp"/axe-core-*.tgz -C "$tmp"
got="$(sed -n 's/^\/\*! axe v\([0-9.]*\).*/\1/p' "$tmp/package/axe.min.js" | head -1)"
[[ "$got" == "$version" ]] || { echo "axe.min.js says v$got, expected v$version" >&2; exit 1; }
cp "$tmp/package/axe.min.js" "$dest/axe.min.js"
cp "$tmp/package/LICENSE" "$dest/axe-LICENSE"
cp "$tmp/package/LICENSE-3RD-PARTY.txt" "$dest/axe-LICENSE-3RD-PARTY.txt"
echo "$version" > "$dest/AXE_VERSION"
(cd "$dest" && sha256sum axe.min.js > axe.min.js.sha256)
echo "vendored axe-core $version into $dest"
