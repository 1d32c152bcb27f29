#!/usr/bin/env bash
# Download the wheelhouse for the air-gapped image build: every wheel that
# requirements.txt needs (CPU-only torch included), for this host's Python 3.11 on
# linux x86_64, which is what the Debian bookworm base image runs. The Dockerfile
# installs it with `pip install --no-index --find-links` (PIP_SOURCE=wheelhouse).
#
#   scripts/wheels.sh [DIR]     default DIR: wheels/ (git-ignored)
#
# torch comes from a local CPU wheel when pip's configured find-links hold one, otherwise
# from PyTorch's CPU index (TORCH_INDEX_URL); a CUDA build is refused. Idempotent: does
# nothing when DIR was made from the same requirements.txt (FORCE=1 redoes it).
set -euo pipefail
cd "$(dirname "$0")/.."

DIR=${1:-wheels}
PYTHON=${PYTHON:-python3}
TORCH_INDEX_URL=${TORCH_INDEX_URL:-https://download.pytorch.org/whl/cpu}
TORCH_VERSION=$(sed -n 's/^torch==\(.*\)$/\1/p' requirements.txt)
stamp="$DIR/.stamp-$(sha256sum requirements.txt | cut -c1-16)"
say() { echo "wheels: $*"; }
pip=("$PYTHON" -m pip --disable-pip-version-check)

if [ "${FORCE:-0}" != 1 ] && [ -f "$stamp" ]; then
  say "$DIR is current for requirements.txt ($(ls "$DIR"/*.whl | wc -l) wheels, $(du -sh "$DIR" | cut -f1))"
  exit 0
fi
"$PYTHON" -c 'import sys; assert sys.version_info[:2] == (3, 11), "the images run Python 3.11: use PYTHON=python3.11"'
start=$(date +%s)
rm -rf "$DIR" && mkdir -p "$DIR"

if "${pip[@]}" download --quiet --no-deps --no-index -d "$DIR" "torch==$TORCH_VERSION" >/dev/null 2>&1; then
  say "torch $TORCH_VERSION from a local wheel ($(basename "$DIR"/torch-*.whl))"
else
  say "torch $TORCH_VERSION from $TORCH_INDEX_URL"
  "${pip[@]}" download --quiet --no-deps -d "$DIR" --index-url "$TORCH_INDEX_URL" "torch==$TORCH_VERSION"
fi
case "$(basename "$DIR"/torch-*.whl)" in
  *+cpu*) ;;
  *) say "refusing: $(basename "$DIR"/torch-*.whl) is not a +cpu build" >&2; exit 1 ;;
esac

say "pip wheel -r requirements.txt (sdists are built into wheels here, on the host)"
# --find-links DIR: the +cpu torch already there satisfies torch==X (local versions sort
# after the plain one), so no CUDA torch or nvidia-* wheel gets resolved.
"${pip[@]}" wheel --quiet --find-links "$DIR" -w "$DIR" -r requirements.txt
if ls "$DIR" | grep -qiE '^nvidia_|^triton-'; then
  say "refusing: CUDA wheels in $DIR: $(ls "$DIR" | grep -iE '^nvidia_|^triton-' | tr '\n' ' ')" >&2
  exit 1
fi
if [ "$(ls "$DIR"/torch-*.whl | wc -l)" != 1 ]; then
  say "refusing: more than one torch wheel in $DIR" >&2; exit 1
fi
touch "$stamp"
say "$(ls "$DIR"/*.whl | wc -l) wheels, $(du -sh "$DIR" | cut -f1), in $(( $(date +%s) - start )) s"
