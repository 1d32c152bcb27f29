"""`python -m ingest [--clean] [--check]`: build the index from the card corpus."""

from __future__ import annotations

import argparse
import logging
import sys

from pydantic import ValidationError

from app.core.config import Settings
from app.core.errors import (
    CorpusError,
    IngestLockedError,
    ServiceError,
    StoreUnavailableError,
    StoreWriteError,
)
from app.core.logging import setup_logging

EXIT_INVALID_CORPUS = 2
EXIT_LOCKED = 3
EXIT_STORE_DOWN = 4
EXIT_STORE_WRITE = 5
EXIT_FAILED = 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ingest", description=__doc__)
    parser.add_argument(
        "--clean",
        action="store_true",
        help="rebuild even when the active index is current (build-then-switch, never a gap)",
    )
    parser.add_argument("--check", action="store_true", help="validate the corpus and exit")
    parser.add_argument(
        "--break-lock", action="store_true", help="take over the ingest lock of a dead ingest"
    )
    args = parser.parse_args(argv)
    setup_logging()
    log = logging.getLogger("ingest")

    try:
        settings = Settings().for_ingest()
    except ValidationError as exc:
        log.error("invalid settings:\n%s", exc)
        return EXIT_FAILED
    setup_logging(settings.log_level)

    from ingest.corpus import load_corpus

    try:
        if args.check:
            corpus = load_corpus(settings.corpus_dir, settings.card_review_max_days)
            print(f"ingest: corpus valid: {len(corpus.cards)} cards (hash {corpus.corpus_hash})")
            return 0

        from app.embedding import get_embedder
        from app.store import corpus_status
        from app.store.index import IndexStore
        from ingest.pipeline import run_ingest

        # Validate before loading the model or touching the store.
        try:
            load_corpus(settings.corpus_dir, settings.card_review_max_days)
        except CorpusError as exc:
            log.error("%s", exc)
            return refused_corpus(settings, exc, clean=args.clean)
        store = IndexStore(settings)
        report = run_ingest(
            settings,
            get_embedder(settings),
            store,
            clean=args.clean,
            break_lock=args.break_lock,
        )
        corpus_status.clear(store)
    except CorpusError as exc:
        log.error("%s", exc)
        return EXIT_INVALID_CORPUS
    except IngestLockedError as exc:
        log.error("%s", exc)
        return EXIT_LOCKED
    except StoreUnavailableError as exc:
        log.error("%s; the active index (if any) is untouched", exc)
        return EXIT_STORE_DOWN
    except StoreWriteError as exc:
        log.error("ingest failed: %s; the active index (if any) is untouched", exc)
        return EXIT_STORE_WRITE
    except (ServiceError, OSError) as exc:
        log.error("ingest failed: %s; the active index (if any) is untouched", exc)
        return EXIT_FAILED
    print(report.summary())
    return 0


def refused_corpus(settings: Settings, exc: CorpusError, *, clean: bool) -> int:
    """The corpus on disk is invalid (every problem is already logged). Record it where
    /readyz reads it. The start-up ingest (no --clean) keeps serving a compatible active
    index and exits 0, so the API starts; an explicit rebuild (--clean), or no usable
    index, exits EXIT_INVALID_CORPUS."""
    from app.embedding import get_embedder
    from app.store import corpus_status
    from app.store.index import IndexStore
    from app.store.schema import differences, expected_build

    log = logging.getLogger("ingest")
    store = IndexStore(settings)
    try:
        corpus_status.record_refusal(store, str(settings.corpus_dir), exc.problems)
        if clean or store.active_name() is None:
            return EXIT_INVALID_CORPUS
        embedder = get_embedder(settings)
        expected = expected_build(settings, embedder.model_id, embedder.dimension)
        diff = differences(store.active_metadata(), expected)
    except ServiceError as err:
        log.error("cannot check the active index: %s", err)
        return EXIT_INVALID_CORPUS
    if diff:
        log.error("the active index cannot be served either (%s)", "; ".join(diff))
        return EXIT_INVALID_CORPUS
    log.error(
        "the corpus in %s was refused; the active index %s (built from an earlier corpus) "
        "keeps serving. To rebuild: %s",
        settings.corpus_dir,
        store.active_name(),
        corpus_status.REBUILD,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
