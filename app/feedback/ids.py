"""Answer ids: 32 lowercase hex characters in the UUID version 7 layout (RFC 9562): a
48-bit millisecond timestamp, then 74 random bits.

Why not uuid4: a rating may reach another worker before the answer's record has left
the first worker's queue, so POST /api/feedback waits a little for an answer it cannot
find yet. The timestamp tells it whether the answer can still be in a queue (then wait
up to ANSWER_WAIT_S from its creation) or not (then 404 at once): unknown or made-up
ids never hold a request. 74 random bits keep ids unguessable; time order also keeps
the primary-key index append-only.
"""

from __future__ import annotations

import secrets
import time

_VERSION = 0x7
_VARIANT = 0b10


def new_answer_id(now_ms: int | None = None) -> str:
    ms = (time.time_ns() // 1_000_000 if now_ms is None else now_ms) & ((1 << 48) - 1)
    rand_a, rand_b = secrets.randbits(12), secrets.randbits(62)
    value = (ms << 80) | (_VERSION << 76) | (rand_a << 64) | (_VARIANT << 62) | rand_b
    return f"{value:032x}"


def created_at_s(answer_id: str) -> float | None:
    """When an id of this layout was made (seconds since the epoch); None otherwise."""
    value = int(answer_id, 16)
    if (value >> 76) & 0xF != _VERSION or (value >> 62) & 0b11 != _VARIANT:
        return None
    return (value >> 80) / 1000
