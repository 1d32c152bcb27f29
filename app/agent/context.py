"""The context block the LLM sees: one entry per parent card, capped in length with the
window centred on the subchunk that matched."""

from __future__ import annotations

from app.retrieval.models import ContextChunk

ELLIPSIS = "…"


def _snap_left(text: str, pos: int) -> int:
    """Move pos right to the start of a word (unless already at one)."""
    if pos <= 0:
        return 0
    if text[pos - 1].isspace():
        return pos
    nxt = next((i for i in range(pos, len(text)) if text[i].isspace()), len(text))
    return min(nxt + 1, len(text))


def _snap_right(text: str, pos: int) -> int:
    """Move pos left to the end of a word (unless already at one)."""
    if pos >= len(text):
        return len(text)
    if text[pos].isspace():
        return pos
    prv = next((i for i in range(pos - 1, -1, -1) if text[i].isspace()), -1)
    return max(prv, 0)


def window(text: str, start: int, end: int, max_chars: int) -> str:
    """At most max_chars of `text` (plus ellipses), containing [start, end) when it fits,
    centred on it; cuts fall on word boundaries and are marked with an ellipsis."""
    if len(text) <= max_chars:
        return text
    start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
    if end - start >= max_chars:
        lo, hi = start, start + max_chars
    else:
        centre = (start + end) // 2
        lo = max(0, centre - max_chars // 2)
        hi = min(len(text), lo + max_chars)
        lo = max(0, hi - max_chars)
    lo, hi = _snap_left(text, lo), _snap_right(text, hi)
    if hi <= lo:  # a single word longer than the budget
        lo, hi = start, min(len(text), start + max_chars)
    body = text[lo:hi].strip()
    return f"{ELLIPSIS if lo > 0 else ''}{body}{ELLIPSIS if hi < len(text) else ''}"


def card_window(chunk: ContextChunk, max_chars: int) -> str:
    start, end = (chunk.matched.start, chunk.matched.end) if chunk.matched else (0, 0)
    return window(chunk.text, start, end, max_chars)


def context_block(parents: list[ContextChunk], max_chars: int) -> str:
    """Cards as delimited data blocks; ids are card ids, the only citable ids."""
    parts = []
    for chunk in parents:
        title = chunk.title
        parts.append(
            f'<card id="{chunk.id}" title="{title}">\n{card_window(chunk, max_chars)}\n</card>'
        )
    return "\n\n".join(parts)
