"""Build-then-switch ingest.

1. validate the whole corpus and chunk it (nothing touches the store before this passes);
2. take the ingest lock (a second concurrent ingest is refused);
3. embed, write every row into a fresh versioned collection;
4. verify row and parent counts, mark the build ready;
5. switch the active pointer in one write, then delete every other version;
6. embed the banks a worker would embed at start (app.banks) that the store does not hold
   yet for this model and their texts, and store them (also when the build was current).

A failure anywhere before step 5 deletes the partial build and leaves the active index
untouched and serving.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.agent.examples import Example, examples_hash, read_examples
from app.banks import WARM_CARDS, store_banks
from app.core.config import Settings
from app.core.errors import IndexNotReadyError, StoreWriteError
from app.core.vector_cache import cached_embed
from app.embedding import Embedder
from app.store import schema
from app.store.index import IndexStore
from app.store.schema import Row
from ingest.chunking import chunk_card
from ingest.corpus import Corpus, load_corpus

log = logging.getLogger("ingest")

WRITE_BATCH = 5000  # measured (docs/benchmarks.md): 975 rows/s at 5000 vs 769 at 1000


@dataclass(frozen=True)
class IngestReport:
    cards: int
    chunks: int
    seconds: float
    collection: str
    rebuilt: bool
    embed_seconds: float = 0.0
    write_seconds: float = 0.0
    verify_seconds: float = 0.0
    banks_embedded: int = 0  # texts of the banks embedded and stored (app.banks)
    banks_seconds: float = 0.0  # of `seconds`: checking, embedding and storing the banks
    banks_error: str = ""  # why the banks could not be stored (the build serves without them)

    def summary(self) -> str:
        banks = f"; banks: {self.banks_embedded} texts embedded" if self.banks_embedded else ""
        if self.banks_error:
            banks = (
                f"; banks NOT stored ({self.banks_error}): workers embed them at start, "
                "re-run the ingest once the store has room"
            )
        if not self.rebuilt:
            return (
                f"ingest: index is up to date ({self.cards} cards, {self.chunks} chunks, "
                f"collection {self.collection}); nothing to do{banks} ({self.seconds:.1f} s)"
            )
        return (
            f"ingest: {self.cards} cards, {self.chunks} chunks, {self.seconds:.1f} s "
            f"(embedding {self.embed_seconds:.1f} s, writes {self.write_seconds:.1f} s), "
            f"collection {self.collection} (active){banks}"
        )


def build_rows(corpus: Corpus, settings: Settings) -> list[Row]:
    """One row per subchunk (app.store.schema owns the format)."""
    return [
        schema.row_from(card, chunk)
        for card in corpus.cards
        for chunk in chunk_card(card.title, card.text, settings.chunk_size, settings.chunk_overlap)
    ]


def _is_current(store: IndexStore, expected: dict[str, Any]) -> tuple[bool, str | None]:
    try:
        name = store.active_name()
        if name is None:
            return False, None
        meta = store.active_metadata()
    except IndexNotReadyError:
        return False, None
    return not schema.differences(meta, expected), name


def _embed(embedder: Embedder, rows: list[Row], batch: int) -> list[list[float]]:
    vectors: list[list[float]] = []
    start = time.perf_counter()
    for i in range(0, len(rows), batch):
        part = embedder.embed([r.document for r in rows[i : i + batch]])
        vectors.extend(v.tolist() for v in part)
        done = len(vectors)
        rate = done / max(time.perf_counter() - start, 1e-9)
        log.info("embedded %d/%d chunks (%.0f chunks/s)", done, len(rows), rate)
    return vectors


def _verify(store: IndexStore, name: str, rows: list[Row], corpus: Corpus) -> None:
    store.verify_build(name, len(rows), set(corpus.ids))


@contextmanager
def _heartbeat(store: IndexStore, every_s: float) -> Iterator[None]:
    """Refresh the ingest lock in the background while the body runs."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(every_s):
            try:
                store.refresh_ingest_lock()
            except Exception as exc:  # a missed beat is not fatal; the TTL is several beats
                log.warning("could not refresh the ingest lock: %s", exc)

    thread = threading.Thread(target=beat, name="ingest-lock-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)


def _release(store: IndexStore) -> None:
    try:
        store.release_ingest_lock()
    except Exception as exc:  # the lock expires by itself; do not hide the real outcome
        log.error("could not release the ingest lock (it will expire): %s", exc)


def run_ingest(
    settings: Settings,
    embedder: Embedder,
    store: IndexStore,
    *,
    clean: bool = False,
    break_lock: bool = False,
) -> IngestReport:
    """Make the active index match the corpus. With clean=True always rebuild."""
    started = time.perf_counter()
    # Raises CorpusError before any store access.
    corpus = load_corpus(settings.corpus_dir, settings.card_review_max_days)
    rows = build_rows(corpus, settings)
    wanted = schema.expected_build(
        settings, embedder.model_id, embedder.dimension, corpus.corpus_hash
    )
    # the example questions belong to the build: a changed set is a new build
    examples = read_examples({c.id: c.text for c in corpus.cards})
    wanted[schema.EXAMPLES_HASH] = examples_hash(examples)
    log.info("corpus valid: %d cards -> %d chunks", len(corpus.cards), len(rows))
    if not clean:
        current, name = _is_current(store, wanted)
        if current and name:
            t_banks = time.perf_counter()
            banks, banks_error = _banks(
                settings, embedder, store, corpus, lock=True, break_lock=break_lock
            )
            return IngestReport(
                len(corpus.cards),
                len(rows),
                time.perf_counter() - started,
                name,
                rebuilt=False,
                banks_embedded=banks,
                banks_seconds=time.perf_counter() - t_banks,
                banks_error=banks_error,
            )

    store.acquire_ingest_lock(break_lock=break_lock)
    name = store.new_version_name()
    try:
        with _heartbeat(store, max(settings.ingest_lock_ttl_s / 4, 1.0)):
            steps = _build(settings, embedder, store, name, corpus, rows, wanted, examples)
            store.activate(name)
    except BaseException:
        log.error(
            "ingest failed; removing the partial build %s, the active index is untouched", name
        )
        _remove_partial(store, name)
        _release(store)
        raise
    try:
        _drop_other_versions(store, name)
        t_banks = time.perf_counter()
        banks, banks_error = _banks(settings, embedder, store, corpus)
        banks_seconds = time.perf_counter() - t_banks
    finally:
        _release(store)
    return IngestReport(
        len(corpus.cards),
        len(rows),
        time.perf_counter() - started,
        name,
        rebuilt=True,
        embed_seconds=steps["embed"],
        write_seconds=steps["write"],
        verify_seconds=steps["verify"],
        banks_embedded=banks,
        banks_seconds=banks_seconds,
        banks_error=banks_error,
    )


def _banks(
    settings: Settings,
    embedder: Embedder,
    store: IndexStore,
    corpus: Corpus,
    lock: bool = False,
    break_lock: bool = False,
) -> tuple[int, str]:
    """Store the banks of the active build that the store does not hold yet (app.banks).
    Returns (texts embedded, "") or, when the store refused them, (0, why): the build is
    already switched and serving, and a worker embeds a missing bank itself, so a bank
    that cannot be stored (a full disk) is reported, not fatal. `lock`: take the ingest
    lock first if anything is to be written (the build was current, so this ingest does
    not hold it yet)."""
    try:
        return _store_banks(settings, embedder, store, corpus, lock, break_lock), ""
    except StoreWriteError as exc:
        log.error(
            "the active build serves, but its banks could not be stored (%s); workers will "
            "embed them at start (slower) until an ingest stores them",
            exc,
        )
        return 0, str(exc)


def _store_banks(
    settings: Settings,
    embedder: Embedder,
    store: IndexStore,
    corpus: Corpus,
    lock: bool,
    break_lock: bool,
) -> int:
    # the cards a worker warms: the build's, by id (IndexStore.list_cards), without
    # reading the build back
    cards = [c.text for c in sorted(corpus.cards, key=lambda c: c.id)][:WARM_CARDS]
    embed = cached_embed(embedder.embed, embedder.model_id, settings.vector_cache_dir)
    batch = min(store.max_batch_size(), WRITE_BATCH)
    if lock:
        from app.banks import missing_banks

        if not missing_banks(embedder.model_id, store, cards):
            return 0
        store.acquire_ingest_lock(break_lock=break_lock)
        try:
            done = store_banks(embed, embedder.model_id, store, cards, batch)
        finally:
            _release(store)
    else:
        done = store_banks(embed, embedder.model_id, store, cards, batch)
    return sum(done.values())


def _build(
    settings: Settings,
    embedder: Embedder,
    store: IndexStore,
    name: str,
    corpus: Corpus,
    rows: list[Row],
    wanted: dict[str, Any],
    examples: list[Example],
) -> dict[str, float]:
    """Embed, write, verify and mark build `name` ready. Returns seconds per step."""
    t0 = time.perf_counter()
    vectors = _embed(embedder, rows, max(settings.embedding_batch_size, 1))
    t1 = time.perf_counter()
    built_at = datetime.now(UTC).isoformat()
    meta = schema.new_build(wanted, built_at, len(corpus.cards), len(rows))
    store.create_version(name, meta)
    store.write_rows(name, rows, vectors, min(store.max_batch_size(), WRITE_BATCH))
    _write_examples(settings, embedder, store, name, examples)
    t2 = time.perf_counter()
    _verify(store, name, rows, corpus)
    store.mark_ready(name, meta)
    t3 = time.perf_counter()
    return {"embed": t1 - t0, "write": t2 - t1, "verify": t3 - t2}


def _remove_partial(store: IndexStore, name: str) -> None:
    """Remove the collections of a failed build, its example questions first (the smaller,
    and the one a full disk refuses last). On a full disk Chroma may refuse to delete a large
    collection too (SQLite needs room to record the deletion): what stays is named, and
    the next ingest that succeeds removes it."""
    for collection in (store.examples_name(name), name):
        try:
            store.delete_collection(collection)
        except Exception as cleanup_exc:  # the original error matters more
            log.error(
                "could not remove partial build %s (%s): %s; it does not serve, and the next "
                "ingest that succeeds removes it (free disk space first if it is full)",
                name,
                collection,
                cleanup_exc,
            )


def _drop_other_versions(store: IndexStore, keep: str) -> None:
    for old in store.list_versions():
        if old != keep:
            store.delete_collection(old)
            log.info("removed old build %s", old)
    for old in store.list_example_sets():
        if old != store.examples_name(keep):
            store.delete_collection(old)


def _write_examples(
    settings: Settings, embedder: Embedder, store: IndexStore, name: str, examples: list[Example]
) -> int:
    """Embed the example questions of the corpus's sentences (kb/questions) and store them
    with build `name` (app.agent.examples)."""
    if not examples:
        return 0
    rows = [
        Row(
            id=f"x{i:06d}",
            document="",  # only the vector serves; the text is in kb/questions
            metadata={"sentences": ",".join(e.sentences), "author": e.author},
        )
        for i, e in enumerate(examples)
    ]
    vectors: list[list[float]] = []
    batch = max(settings.embedding_batch_size, 1)
    for i in range(0, len(examples), batch):
        part = embedder.embed([e.text for e in examples[i : i + batch]])
        vectors.extend(v.tolist() for v in part)
    store.write_examples(name, rows, vectors, min(store.max_batch_size(), WRITE_BATCH))
    log.info("stored %d example questions with %s", len(rows), name)
    return len(rows)
