"""Text normalization shared across layers."""

from __future__ import annotations

import unicodedata


def fold(text: str) -> str:
    """Lower-case, accents removed, whitespace collapsed."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).split())
