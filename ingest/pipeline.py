"""Build-then-switch ingest.

1. validate the whole corpus and chunk it (nothing touches the store before this passes);
2. take the ingest lock (a second concurrent ingest is refused);
3. embed, write every row into a fresh versioned collection;
4. verify row and parent counts, mark the build ready;
5. switch the active pointer in one write, then delete every other version.

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

from chromadb.errors import ChromaError

from app.core.config import Settings
from app.core.errors import IndexNotReadyError, IngestVerificationError, StoreWriteError
from app.embedding import Embedder
from app.retrieval.lexical import tokenize
from app.store.compat import differences, expected_build
from app.store.index import IndexStore, paged_get
from ingest.chunking import chunk_card
from ingest.corpus import Corpus, load_corpus

log = logging.getLogger("ingest")

WRITE_BATCH = 5000  # measured (docs/benchmarks.md): 975 rows/s at 5000 vs 769 at 1000


@dataclass(frozen=True)
class ChunkRow:
    id: str
    text: str
    metadata: dict[str, Any]


@dataclass(frozen=True)
class IngestReport:
    cards: int
    chunks: int
    seconds: float
    collection: str
    rebuilt: bool
    embed_seconds: float = 0.0
    write_seconds: float = 0.0

    def summary(self) -> str:
        if not self.rebuilt:
            return (
                f"ingest: index is up to date ({self.cards} cards, {self.chunks} chunks, "
                f"collection {self.collection}); nothing to do ({self.seconds:.1f} s)"
            )
        return (
            f"ingest: {self.cards} cards, {self.chunks} chunks, {self.seconds:.1f} s "
            f"(embedding {self.embed_seconds:.1f} s, writes {self.write_seconds:.1f} s), "
            f"collection {self.collection} (active)"
        )


def chunk_id(card_id: str, index: int) -> str:
    return f"{card_id}::{index:02d}"


def build_rows(corpus: Corpus, settings: Settings) -> list[ChunkRow]:
    """One row per subchunk, carrying the whole parent card in its metadata."""
    rows: list[ChunkRow] = []
    for card in corpus.cards:
        for chunk in chunk_card(card.title, card.text, settings.chunk_size, settings.chunk_overlap):
            rows.append(
                ChunkRow(
                    id=chunk_id(card.id, chunk.index),
                    text=chunk.text,
                    metadata={
                        "parent_id": card.id,
                        "chunk_index": chunk.index,
                        "chunk_start": chunk.start,
                        "chunk_end": chunk.end,
                        "lexical_tokens": " ".join(tokenize(chunk.text)),
                        "parent_text": card.text,
                        "parent_title": card.title,
                        "license": card.license,
                        "topics": ", ".join(card.topics),
                        "accessed_at": card.accessed_at.isoformat(),
                        "source": card.source,
                    },
                )
            )
    return rows


def _is_current(store: IndexStore, expected: dict[str, Any]) -> tuple[bool, str | None]:
    try:
        name = store.active_name()
        if name is None:
            return False, None
        meta = store.active_metadata()
    except IndexNotReadyError:
        return False, None
    return not differences(meta, expected), name


def _embed(embedder: Embedder, rows: list[ChunkRow], batch: int) -> list[list[float]]:
    vectors: list[list[float]] = []
    start = time.perf_counter()
    for i in range(0, len(rows), batch):
        part = embedder.embed([r.text for r in rows[i : i + batch]])
        vectors.extend(v.tolist() for v in part)
        done = len(vectors)
        rate = done / max(time.perf_counter() - start, 1e-9)
        log.info("embedded %d/%d chunks (%.0f chunks/s)", done, len(rows), rate)
    return vectors


def _write(collection: Any, rows: list[ChunkRow], vectors: list[list[float]], batch: int) -> None:
    for i in range(0, len(rows), batch):
        part = rows[i : i + batch]
        collection.add(
            ids=[r.id for r in part],
            documents=[r.text for r in part],
            metadatas=[r.metadata for r in part],
            embeddings=vectors[i : i + batch],
        )
        log.info("wrote %d/%d rows", min(i + batch, len(rows)), len(rows))


def _verify(collection: Any, rows: list[ChunkRow], corpus: Corpus) -> None:
    count = collection.count()
    if count != len(rows):
        raise IngestVerificationError(f"new build holds {count} rows, expected {len(rows)}")
    parents = {m["parent_id"] for _, _, m in paged_get(collection, ["metadatas"])}
    if parents != set(corpus.ids):
        missing = sorted(set(corpus.ids) - parents)[:5]
        raise IngestVerificationError(
            f"new build holds {len(parents)} parents, expected {len(corpus.ids)} "
            f"(missing {missing})"
        )


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
    corpus = load_corpus(settings.corpus_dir)  # raises CorpusError before any store access
    rows = build_rows(corpus, settings)
    expected = expected_build(settings, embedder.model_id, embedder.dimension)
    log.info("corpus valid: %d cards -> %d chunks", len(corpus.cards), len(rows))

    wanted = {**expected, "corpus_hash": corpus.corpus_hash}
    if not clean:
        current, name = _is_current(store, wanted)
        if current and name:
            return IngestReport(
                len(corpus.cards), len(rows), time.perf_counter() - started, name, rebuilt=False
            )

    store.acquire_ingest_lock(break_lock=break_lock)
    name = store.new_version_name()
    try:
        with _heartbeat(store, max(settings.ingest_lock_ttl_s / 4, 1.0)):
            t0 = time.perf_counter()
            vectors = _embed(embedder, rows, max(settings.embedding_batch_size, 1))
            t1 = time.perf_counter()
            meta = {
                **wanted,
                "built_at": datetime.now(UTC).isoformat(),
                "card_count": len(corpus.cards),
                "chunk_count": len(rows),
                "state": "building",
            }
            collection = store.create_version(name, meta)
            batch = min(store.max_batch_size(), WRITE_BATCH)
            _write(collection, rows, vectors, batch)
            _verify(collection, rows, corpus)
            collection.modify(metadata={**meta, "state": "ready"})
            t2 = time.perf_counter()
            store.activate(name)
    except BaseException as exc:
        log.error(
            "ingest failed; removing the partial build %s, the active index is untouched", name
        )
        try:
            store.delete_collection(name)
        except Exception as cleanup_exc:  # the original error matters more
            log.error("could not remove partial build %s: %s", name, cleanup_exc)
        _release(store)
        if isinstance(exc, ChromaError):  # a write on the new collection itself failed
            raise StoreWriteError(
                f"the store refused to write or read back the new build: {exc}. When the "
                "message does not say why, check the free disk space and the write "
                "permissions of the Chroma data directory"
            ) from exc
        raise
    try:
        for old in store.list_versions():
            if old != name:
                store.delete_collection(old)
                log.info("removed old build %s", old)
    finally:
        _release(store)
    return IngestReport(
        len(corpus.cards),
        len(rows),
        time.perf_counter() - started,
        name,
        rebuilt=True,
        embed_seconds=t1 - t0,
        write_seconds=t2 - t1,
    )
