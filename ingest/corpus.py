"""Load and validate the card corpus: Markdown files with YAML front matter.

The whole corpus is validated before anything is written anywhere. Every problem is
collected (file and field) and raised at once as a CorpusError.

Medical content is reviewed on a schedule: every card records its last clinical review
(`reviewed_at`, optionally `reviewed_by`). A review date in the future is refused; a
review older than CARD_REVIEW_MAX_DAYS is logged as a warning (the card is still served).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from datetime import date, timedelta
from pathlib import Path

import yaml
from pydantic import BaseModel, ValidationError

from app.core.cards import Card
from app.core.errors import CorpusError

log = logging.getLogger("ingest")

_FRONT_MATTER = re.compile(r"\A---\s*\n(?P<meta>.*?)\n---\s*(?:\n|\Z)(?P<body>.*)\Z", re.DOTALL)


class _Loader(yaml.SafeLoader):
    """SafeLoader that leaves dates as text, so pydantic validates them and the error
    names the field instead of YAML failing on an impossible date."""


_Loader.yaml_implicit_resolvers = {
    key: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class Corpus(BaseModel):
    """A validated corpus: cards sorted by id, and a content hash over all of them."""

    cards: list[Card]
    corpus_hash: str

    @property
    def ids(self) -> list[str]:
        return [c.id for c in self.cards]


def _read_card(path: Path) -> tuple[dict[str, object] | None, list[str]]:
    """Parse one file into raw fields; return (fields, problems)."""
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [f"{path}: cannot read file as UTF-8 ({exc})"]
    match = _FRONT_MATTER.match(raw)
    if not match:
        return None, [f"{path}: missing YAML front matter (the file must start with '---')"]
    try:
        meta = yaml.load(match.group("meta"), Loader=_Loader)  # noqa: S506 - safe subclass
    except yaml.YAMLError as exc:
        return None, [f"{path}: front matter is not valid YAML ({exc})"]
    if not isinstance(meta, dict):
        return None, [f"{path}: front matter must be a mapping of fields"]
    if "text" in meta:
        return None, [f"{path}: text: the body goes after the front matter, not in a field"]
    fields: dict[str, object] = dict(meta)
    fields["text"] = match.group("body")
    return fields, []


def _field_problems(path: Path, exc: ValidationError) -> list[str]:
    problems = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"]) or "card"
        if field == "text":
            field = "body"
        problems.append(f"{path}: {field}: {err['msg'].removeprefix('Value error, ')}")
    return problems


def corpus_hash(cards: list[Card]) -> str:
    digest = hashlib.sha256()
    for card in sorted(cards, key=lambda c: c.id):
        digest.update(json.dumps(card.model_dump(mode="json"), sort_keys=True).encode())
    return digest.hexdigest()[:16]


def overdue_reviews(
    cards: list[Card], max_days: int, paths: dict[str, Path], today: date | None = None
) -> list[str]:
    """One line per card whose last review is older than `max_days`."""
    limit = (today or date.today()) - timedelta(days=max_days)
    return [
        f"{paths.get(c.id, c.id)}: reviewed_at: last review {c.reviewed_at.isoformat()} is "
        f"older than {max_days} days (CARD_REVIEW_MAX_DAYS): have the card reviewed"
        for c in cards
        if c.reviewed_at < limit
    ]


def load_corpus(directory: Path, review_max_days: int = 365) -> Corpus:
    """Validate every `*.md` card under `directory`; raise CorpusError listing all problems.
    Cards whose review is older than `review_max_days` are logged as warnings."""
    if not directory.is_dir():
        raise CorpusError([f"{directory}: corpus directory does not exist"])
    paths = sorted(directory.glob("*.md"))
    if not paths:
        raise CorpusError([f"{directory}: no card files (*.md) found"])

    problems: list[str] = []
    cards: list[Card] = []
    seen: dict[str, Path] = {}
    for path in paths:
        fields, read_problems = _read_card(path)
        problems.extend(read_problems)
        if fields is None:
            continue
        try:
            card = Card.model_validate(fields)
        except ValidationError as exc:
            problems.extend(_field_problems(path, exc))
            continue
        if card.id in seen:
            problems.append(f"{path}: id: duplicate id {card.id!r} (also in {seen[card.id]})")
            continue
        if path.stem != card.id:
            problems.append(f"{path}: id: {card.id!r} does not match the file name {path.name!r}")
        seen[card.id] = path
        cards.append(card)

    if problems:
        raise CorpusError(problems)
    for line in overdue_reviews(cards, review_max_days, seen):
        log.warning("%s", line)
    from ingest.review import flags

    for flag in flags(cards):
        log.warning("%s", flag.line(seen[flag.card_id]))
    cards.sort(key=lambda c: c.id)
    return Corpus(cards=cards, corpus_hash=corpus_hash(cards))
