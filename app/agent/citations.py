"""Citation contract (ADR-0005, unchanged by ADR-0020): markers are [cite:card-X]; every
cited id must be one of the retrieved cards; anything else is removed and reported."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.agent.text import CITE_MARKER


@dataclass
class Verified:
    answer: str
    citations: list[str]
    warnings: list[str] = field(default_factory=list)


def verify(draft: str, allowed: list[str], claimed: list[str] | None = None) -> Verified:
    """Remove markers naming cards that were not retrieved; list the valid ones in order."""
    allowed_set = set(allowed)
    warnings: list[str] = []
    cited: list[str] = []

    def keep_or_drop(match: object) -> str:
        card = match.group(1)  # type: ignore[attr-defined]
        if card in allowed_set:
            if card not in cited:
                cited.append(card)
            return f"[cite:{card}]"
        warnings.append(f"removed citation [cite:{card}]: not one of the retrieved cards")
        return ""

    answer = CITE_MARKER.sub(keep_or_drop, draft)
    answer = " ".join(answer.replace(" .", ".").split()) if warnings else answer.strip()
    for card in claimed or []:
        if card not in allowed_set:
            warnings.append(f"ignored cited id {card!r} in the structured answer: not retrieved")
        elif card not in cited:
            warnings.append(f"{card} listed as a citation but not cited in the text; not shown")
    return Verified(answer=answer, citations=cited, warnings=warnings)
