#!/usr/bin/env bash
# Create the project's virtualenv (.venv) with a CPU-only torch and every dependency.
# Idempotent: does nothing when the requirements have not changed since the last run.
# Never installs a CUDA build of torch: it takes a local CPU wheel when pip's configured
# find-links hold one (air-gapped hosts), otherwise PyTorch's CPU index
# (override with TORCH_INDEX_URL), and checks the result.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3}
TORCH_VERSION=$(sed -n 's/^torch==\(.*\)$/\1/p' requirements.txt)
stamp="$VENV/.bootstrap-$(cat requirements.txt requirements-dev.txt | sha256sum | cut -c1-16)"

if [ -f "$stamp" ]; then
  exit 0
fi
echo "bootstrap: creating $VENV (python: $($PYTHON --version))"
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
pip=("$VENV/bin/python" -m pip --disable-pip-version-check)

if "${pip[@]}" show torch >/dev/null 2>&1 \
   && "$VENV/bin/python" -c "import torch,sys; sys.exit(torch.__version__.split('+')[0] != '$TORCH_VERSION' or torch.version.cuda is not None)"; then
  echo "bootstrap: CPU torch $TORCH_VERSION already installed"
elif "${pip[@]}" install --dry-run --quiet --no-deps --no-index "torch==$TORCH_VERSION" >/dev/null 2>&1; then
  echo "bootstrap: installing torch $TORCH_VERSION from a local CPU wheel"
  "${pip[@]}" install --quiet "torch==$TORCH_VERSION"  # the local +cpu wheel sorts first
else
  url=${TORCH_INDEX_URL:-https://download.pytorch.org/whl/cpu}
  echo "bootstrap: installing torch $TORCH_VERSION from $url"
  "${pip[@]}" install --quiet --index-url "$url" "torch==$TORCH_VERSION"
fi
"$VENV/bin/python" -c "import torch,sys; sys.exit('torch is a CUDA build; refusing' if torch.version.cuda else 0)"

echo "bootstrap: installing requirements-dev.txt"
"${pip[@]}" install --quiet -r requirements-dev.txt
"$VENV/bin/python" -c "import torch,sys; sys.exit('a dependency replaced torch with a CUDA build' if torch.version.cuda else 0)"
rm -f "$VENV"/.bootstrap-*
touch "$stamp"
echo "bootstrap: done"
