"""Text normalization shared across layers: accent folding, and the Portuguese tokenizer
whose output ingest stores with each row (BM25) and retrieval applies to questions.

It lives in core because both sides of the store use it: ingest writes tokens, retrieval
reads them. `TOKENIZER_ID` names this tokenizer in every build's metadata, so a build
tokenized differently is never searched.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any

TOKENIZER_ID = "pt-snowball-fold-stop-v1"
_WORD = re.compile(r"\w+", re.UNICODE)


@lru_cache(maxsize=1 << 15)
def fold(text: str) -> str:
    """Lower-case, accents removed, whitespace collapsed."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).split())


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("portuguese")


@lru_cache(maxsize=1)
def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_PORTUGUESE

    return frozenset(fold(w) for w in STOPWORDS_PORTUGUESE)


def tokenize(text: str) -> list[str]:
    """Lower-case words, Portuguese stopwords dropped, Snowball-stemmed, accents folded
    (`fold` is cached: a card lexicon of 10,000 cards folds a few million words, of a few
    tens of thousands distinct ones)."""
    words = [w for w in _WORD.findall(text.lower()) if len(w) > 1 or w.isdigit()]
    words = [w for w in words if fold(w) not in _stopwords()]
    return [fold(stem) for stem in _stemmer().stemWords(words)]
