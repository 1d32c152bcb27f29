"""Sub-card chunker (ADR-0020): recursive split by separator priority, greedy repacking,
word-aligned overlap, title prefix on the first subchunk only.

Pure Python, no dependency: the algorithm is small and the ADR rules out adding a
chunking library for a corpus of this size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Separator priority: paragraph break, line break, sentence punctuation, word boundary.
# Splitting only ever drops whitespace, so the pieces keep every other character.
SEPARATORS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\n[ \t]*\n\s*"), "\n\n"),
    (re.compile(r"\s*\n\s*"), "\n"),
    (re.compile(r"(?<=[.!?…;])\s+"), " "),
    (re.compile(r"\s+"), " "),
)


@dataclass(frozen=True)
class Subchunk:
    """One subchunk. `body` is the new text it covers; `overlap` repeats the end of the
    previous body; `title` is set on the first subchunk only. `start`/`end` locate the
    body in the card text (character offsets)."""

    index: int
    body: str
    overlap: str = ""
    title: str = ""
    start: int = 0
    end: int = 0

    @property
    def text(self) -> str:
        """What gets embedded."""
        if self.title:
            return f"{self.title}\n\n{self.body}"
        if self.overlap:
            return f"{self.overlap} {self.body}"
        return self.body


def _hard_split(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _split(text: str, size: int, level: int) -> list[str]:
    """Pieces of `text`, each at most `size` characters, in order."""
    text = text.strip()
    if not text:
        return []
    if len(text) <= size:
        return [text]
    if level == len(SEPARATORS):
        return _hard_split(text, size)
    pattern, joiner = SEPARATORS[level]
    parts = [p for p in pattern.split(text) if p.strip()]
    if len(parts) <= 1:
        return _split(text, size, level + 1)

    pieces: list[str] = []
    current = ""
    for part in parts:
        part = part.strip()
        if len(part) > size:
            # Too big for this separator: flush, then recurse with the next priority.
            if current:
                pieces.append(current)
                current = ""
            pieces.extend(_split(part, size, level + 1))
        elif not current:
            current = part
        elif len(current) + len(joiner) + len(part) <= size:
            current = f"{current}{joiner}{part}"
        else:
            pieces.append(current)
            current = part
    if current:
        pieces.append(current)
    return pieces


def _overlap_window(previous: str, overlap: int) -> str:
    """The last `overlap` characters of `previous`, trimmed forward to a word start."""
    if overlap <= 0 or not previous:
        return ""
    start = max(0, len(previous) - overlap)
    window = previous[start:]
    if start > 0 and not previous[start - 1].isspace() and not window[0].isspace():
        # The window starts mid-word: drop up to the next whitespace.
        cut = re.search(r"\s", window)
        window = window[cut.end() :] if cut else ""
    return " ".join(window.split())


def split_text(text: str, chunk_size: int, chunk_overlap: int) -> list[str]:
    """The chunk bodies of `text` (no overlap, no title)."""
    if chunk_size <= 0 or chunk_overlap < 0 or chunk_overlap >= chunk_size:
        raise ValueError(
            f"need 0 <= chunk_overlap < chunk_size, got size={chunk_size} overlap={chunk_overlap}"
        )
    return _split(text, chunk_size, 0)


def _spans(text: str, bodies: list[str]) -> list[tuple[int, int]]:
    """Where each body lies in `text`. Repacking may have changed the whitespace between
    words (never the words), so match word by word with any whitespace between."""
    spans, pos = [], 0
    for body in bodies:
        pattern = r"\s*".join(re.escape(word) for word in body.split())
        found = re.compile(pattern).search(text, pos)
        start, end = (found.start(), found.end()) if found else (pos, pos + len(body))
        spans.append((start, end))
        pos = end
    return spans


def chunk_card(title: str, text: str, chunk_size: int, chunk_overlap: int) -> list[Subchunk]:
    """Subchunks of one card: title on chunk 0, overlap on every later chunk."""
    bodies = split_text(text, chunk_size, chunk_overlap)
    chunks: list[Subchunk] = []
    for index, (body, (start, end)) in enumerate(zip(bodies, _spans(text, bodies), strict=True)):
        if index == 0:
            chunks.append(Subchunk(0, body, title=title.strip(), start=start, end=end))
        else:
            overlap = _overlap_window(bodies[index - 1], chunk_overlap)
            chunks.append(Subchunk(index, body, overlap=overlap, start=start, end=end))
    return chunks
