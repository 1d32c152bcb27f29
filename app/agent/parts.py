"""The parts of a question: "tomo AAS e sinvastatina, como tomo os dois?" asks two things,
"posso tomar a levotiroxina com café? e com leite?" too.

`clauses` splits a message into the questions it asks: at a question mark that more text
follows, and before an "e"/"mas" (or ". E") that opens a new question ("..., e ela pode
ser tomada com comida?"). Only a piece with a question mark is a part: a story before it
joins it, and a statement after the last one ("Tomo enalapril.") joins that one. A part
needs a content word ("e com leite?" has one).
"""

from __future__ import annotations

import re

from app.agent.tunables import MIN_TERMS
from app.core.text import fold, tokenize

# What opens a question of its own after "e" / "mas".
_OPENS_QUESTION = (
    r"(?:posso|pode|podem|devo|deve|preciso|precisa|tem|tenho|e|eh|da|dá|vai|vou|faz|fazer|"
    r"qual|quais|quanto|quantos|quanta|quando|como|onde|porque|por que|pq|o que|oq|que|"
    r"se|isso|ele|ela|eles|elas|esse|essa|tambem|também|ja|já|ainda|normal|serve|ajuda|"
    r"atrapalha|interfere|mexe|muda|faz mal|tem problema|existe|há|ha|quem|precisa|dá pra|da pra)"
)
_BREAK = re.compile(
    rf"(?<=\?)\s+|[,;]\s+(?=(?:e|mas)\s+{_OPENS_QUESTION}\b)|(?<=[.!])\s+(?=(?:e|mas)\s)",
    re.IGNORECASE,
)


def _content(text: str) -> int:
    return len([t for t in tokenize(text) if not t.isdigit()])


_INTERROGATIVE = re.compile(
    r"\b(?:qual|quais|quanto|quantos|quando|como|onde|por que|o que|oq|posso|pode|devo|preciso|"
    r"precisa|tem problema|faz mal)\b"
)


def _pieces(question: str) -> list[tuple[str, bool]]:
    """(piece, asks) at each break: a piece asks when it has a question mark, or when it
    ends before an "e"/"mas" that opens another question and has a question word itself."""
    out: list[tuple[str, bool]] = []
    start = 0
    text = question.strip()
    for m in _BREAK.finditer(text):
        piece = text[start : m.start()].strip(" ,;")
        comma = text[m.start() : m.end()].lstrip()[:1] in (",", ";")
        if piece:
            out.append(
                (piece, "?" in piece or (comma and bool(_INTERROGATIVE.search(fold(piece)))))
            )
        start = m.end()
    last = text[start:].strip(" ,;")
    if last:
        out.append((last, "?" in last))
    return out


def clauses(question: str) -> list[str]:
    """The questions a message asks, in order (one element when it asks one thing)."""
    pieces = _pieces(question)
    if len(pieces) < 2:
        return [question.strip()]
    merged: list[str] = []
    pending = ""
    for piece, asks in pieces:
        text = f"{pending} {piece}".strip() if pending else piece
        if asks:
            merged.append(text)
            pending = ""
        else:
            pending = text  # a story, or a statement: it belongs to the question after it
    if pending:  # a statement after the last question ("Tomo enalapril.") is its context
        merged[-1:] = [f"{merged[-1]} {pending}"] if merged else [pending]
    parts = [m for m in merged if _content(m) >= MIN_TERMS]
    return parts if len(parts) >= 2 else [question.strip()]
