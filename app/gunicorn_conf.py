"""gunicorn configuration, sized for a 2 vCPU / 16 GB host.

- uvicorn workers (the `uvicorn-worker` package, each response sent in one write:
  app.api.one_write); WEB_CONCURRENCY workers (default 2);
- the embedding model is loaded in each worker after the fork (no preload_app: PyTorch
  is not fork-safe), and each worker's forward pass gets cores // workers threads so
  workers x threads <= cores;
- graceful timeout; workers are not recycled after a number of requests (below);
- the worker timeout (GUNICORN_TIMEOUT_S) stays above REQUEST_DEADLINE_S (Settings checks
  it), so a request that hits its deadline gets its 503 long before a worker is killed;
- X-Forwarded-For is honoured only from FORWARDED_ALLOW_IPS (default: loopback). The
  uvicorn worker hands this setting to uvicorn's proxy-headers middleware, which then sets
  the client address that the rate limit and the access log see; from anyone else the
  header is ignored. The production override trusts its TLS proxy's fixed address alone.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

from app.core.config import Settings

_settings = Settings()  # not the cached one: workers build theirs after TORCH_THREADS is set
_cores = os.cpu_count() or 1

bind = _settings.gunicorn_bind
workers = _settings.web_concurrency
worker_class = "app.api.one_write.UvicornWorker"  # uvicorn's, one write per response
preload_app = False
timeout = _settings.gunicorn_timeout_s
forwarded_allow_ips = _settings.forwarded_allow_ips
graceful_timeout = 30
keepalive = 5
# No recycling by request count (it was 5,000 with a jitter of 500). Two workers share the
# traffic evenly, so they reached their limits seconds apart and often restarted together:
# `ab -c 16` on /healthz waited 24.1 s for an answer while both booted (2026-12-06, busy
# host). Memory does not need it (docs/benchmarks.md, Findings): 12,000 asks in one process
# held Python's live objects flat from the 3,000th on (695k), every cache full or
# stopped, and RSS crept 0.5 MB per 1,000 asks that malloc_trim gave back (allocator
# fragmentation, not a leak); the served workers went 501 -> 601 MB over 20,000 asks each.
# An operator who wants it anyway: GUNICORN_CMD_ARGS="--max-requests 50000
# --max-requests-jitter 25000" (a wide jitter keeps the workers apart); a restarting worker
# serves the requests already sent to it (app.api.one_write).
max_requests = 0
accesslog = "-"
errorlog = "-"
loglevel = _settings.log_level.lower()

_fair_share = max(1, _cores // workers)
_threads = min(_settings.torch_threads or _fair_share, _fair_share)
if _settings.torch_threads > _fair_share:
    # Measured (docs/benchmarks.md): more forward-pass threads than cores collapses
    # throughput (2 workers x 2 threads on 2 cores: 5 req/s against 64-93 for 2 x 1).
    print(
        f"gunicorn_conf: TORCH_THREADS={_settings.torch_threads} capped to {_threads} "
        f"({workers} workers on {_cores} cores)",
        file=sys.stderr,
    )
raw_env = [f"TORCH_THREADS={_threads}", f"OMP_NUM_THREADS={_threads}"]
os.environ["TORCH_THREADS"] = str(_threads)
os.environ["OMP_NUM_THREADS"] = str(_threads)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

# Prometheus multiprocess mode: one directory shared by the workers of this master.
# Imported once here, in the master, before the workers fork (PRELOAD_LIBRARIES): modules
# only, and the word list (pure data). Each worker still loads its model, builds its
# analyzer and opens its store clients after the fork: no model, client or thread exists
# in the master when it forks.
PRELOADED = (
    "spacy",
    "chromadb",
    "langgraph.graph",
    "fastapi",
    "spellchecker",
    "presidio_analyzer",
    "presidio_anonymizer",
)


# Optional integrations the preloaded libraries import when they can, and that this service
# never runs: presidio_analyzer's Hugging Face pipeline imports `transformers` (3.0-3.5 s
# measured), thinc (under spaCy) imports `torch` (1.8 s). The personal-data stripper runs
# a blank spaCy pipeline (app.safety.pii). Both stay importable after the preload: the
# sentence-transformers embedder imports them in its worker, after the fork.
NOT_PRELOADED = ("transformers", "torch")


def _preload() -> None:
    import importlib

    blocked = [name for name in NOT_PRELOADED if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        for name in PRELOADED:
            importlib.import_module(name)
    finally:
        for name in blocked:
            sys.modules.pop(name, None)
    from app.core.vocabulary import portuguese_words

    portuguese_words()


if _settings.preload_libraries:
    _preload()

_metrics_dir = tempfile.mkdtemp(prefix="rag-metrics-")
os.environ["PROMETHEUS_MULTIPROC_DIR"] = _metrics_dir


def child_exit(server: object, worker: object) -> None:
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)  # type: ignore[attr-defined,no-untyped-call]


def on_exit(server: object) -> None:
    shutil.rmtree(_metrics_dir, ignore_errors=True)
