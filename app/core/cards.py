"""The card, declared once: ingest validates a card file against it, the store writes it
whole into every row of its subchunks and reads it back, retrieval hands it to the agent
inside a `ContextChunk`, and `GET /api/cards/{id}` returns it as it is.

Adding a field to a card: declare it here (type, constraints, description), give the card
files their values, and show it where a reader needs it (app/web/card-panel.js). Nothing
else names the fields one by one: the store serialises the model as JSON
(app/store/schema.py) and the API's response model is this class.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

CARD_ID_PATTERN = r"^card-\d{3,6}$"  # card-001 ... card-999999
# Bounds on the body: the upper one keeps the card, stored as Chroma metadata on every
# subchunk row, well under Chroma's 16 KB per metadata value.
BODY_MIN_CHARS = 100
BODY_MAX_CHARS = 12_000
# The patient question a card offers as a suggestion (a not-covered answer's "assuntos
# próximos"): short enough for one button on a phone.
QUESTION_MIN_CHARS = 10
QUESTION_MAX_CHARS = 120

NonEmpty = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Audience = Literal["adult", "child", "elderly"]


def _adults() -> list[Audience]:
    return ["adult"]


class Card(BaseModel):
    """One validated card. `text` is the body, stripped."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Annotated[str, StringConstraints(pattern=CARD_ID_PATTERN)] = Field(
        description="The card id, such as card-001: what answers cite"
    )
    title: Annotated[str, StringConstraints(strip_whitespace=True, min_length=3, max_length=200)]
    topics: Annotated[list[NonEmpty], Field(min_length=1, max_length=8)]
    source: Annotated[str, StringConstraints(strip_whitespace=True, min_length=3, max_length=500)]
    license: Annotated[str, StringConstraints(strip_whitespace=True, min_length=2, max_length=100)]
    accessed_at: date = Field(description="When the source was consulted (YYYY-MM-DD)")
    suggested_question: (
        Annotated[
            str,
            StringConstraints(
                strip_whitespace=True, min_length=QUESTION_MIN_CHARS, max_length=QUESTION_MAX_CHARS
            ),
        ]
        | None
    ) = Field(
        default=None,
        # None stands for "absent" (a row stored before the field existed): it is left out
        # of a dump, so what is dumped always validates again.
        exclude_if=lambda value: value is None,
        description=(
            "A short patient question the card answers, in plain Portuguese, ending with '?': "
            "what a not-covered answer offers to ask instead. Shown, never embedded or "
            "indexed. Absent only in rows stored before the field existed."
        ),
    )
    reviewed_at: date = Field(description="Date of the last clinical review (YYYY-MM-DD)")
    reviewed_by: (
        Annotated[str, StringConstraints(strip_whitespace=True, min_length=3, max_length=200)]
        | None
    ) = Field(default=None, description="Who reviewed it, if recorded")
    audience: Annotated[list[Audience], Field(min_length=1, max_length=3)] = Field(
        default_factory=_adults,
        description="Who the card is written for: adult, child, elderly (adult if not said)",
    )
    text: Annotated[
        str,
        StringConstraints(
            strip_whitespace=True, min_length=BODY_MIN_CHARS, max_length=BODY_MAX_CHARS
        ),
    ]

    @field_validator("reviewed_at")
    @classmethod
    def _reviewed_in_the_past(cls, value: date) -> date:
        today = date.today()
        if value > today:
            raise ValueError(
                f"review date {value.isoformat()} is in the future (today is "
                f"{today.isoformat()}): record the date the review actually happened"
            )
        return value

    @field_validator("suggested_question", mode="before")
    @classmethod
    def _given_means_written(cls, value: object) -> object:
        # A key with nothing after it (YAML null) is an empty question, not an absent one.
        if value is None or (isinstance(value, str) and not value.strip()):
            raise ValueError("empty: write the short question a patient would ask, ending with '?'")
        return value

    @field_validator("suggested_question")
    @classmethod
    def _a_question(cls, value: str | None) -> str | None:
        if value is not None and not value.endswith("?"):
            raise ValueError(
                f"{value!r} is not a question: write what a patient would ask, ending with '?'"
            )
        return value

    @field_validator("audience")
    @classmethod
    def _no_repeats(cls, value: list[Audience]) -> list[Audience]:
        if len(set(value)) != len(value):
            raise ValueError(f"audience {value} names a group twice")
        return value
