"""Answer generators, by job: `extractive` (card sentences, offline and deterministic, the
default), `openai` (an OpenAI-compatible model, falling back to the extractive answer),
`focus` (what the answer stays on), `guidance` (the cards' "do not do it on your own"),
`draft` (what every generator returns). Each returns a Draft: text with [cite:card-X]
markers, plus the ids it claims to have used. Verification (app.agent.verify) comes after,
for all."""

from __future__ import annotations

from collections.abc import Callable

from app.agent.examples import ExampleBank
from app.agent.generators.draft import Draft, Generator
from app.agent.generators.extractive import ExtractiveGenerator
from app.agent.generators.focus import (
    LOW_MOOD,
    Focus,
    make_focus,
    mentions_name,
    names_a_medicine_of,
    names_other_medicine,
    need_of,
)
from app.agent.generators.guidance import (
    add_guidance,
    guidance_sentence,
    is_guidance,
    portable_guidance,
    speaks_to_stop,
)
from app.agent.generators.openai import (
    LLMOutputError,
    OpenAICompatibleGenerator,
    parse_structured,
)
from app.agent.vectors import SentenceVectors
from app.core.config import Settings

__all__ = [
    "LOW_MOOD",
    "Draft",
    "ExtractiveGenerator",
    "Focus",
    "Generator",
    "LLMOutputError",
    "OpenAICompatibleGenerator",
    "add_guidance",
    "guidance_sentence",
    "is_guidance",
    "make_focus",
    "make_generator",
    "mentions_name",
    "names_a_medicine_of",
    "names_other_medicine",
    "need_of",
    "parse_structured",
    "portable_guidance",
    "speaks_to_stop",
]


def make_generator(
    settings: Settings,
    vectors: SentenceVectors,
    examples: Callable[[], ExampleBank] | None = None,
) -> Generator:
    extractive = ExtractiveGenerator(vectors, settings, examples=examples)
    if settings.generator == "openai":
        return OpenAICompatibleGenerator(settings, extractive)
    return extractive
