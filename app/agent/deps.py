"""The run's dependencies of the agent graph (LangGraph's `runtime.context`): built once
per process (app.composition) and read by the nodes (app.agent.nodes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.agent.card_ranker import CardRanker
from app.agent.examples import ExampleBank
from app.agent.generators import Generator
from app.agent.intent import IntentModel
from app.agent.question_bank import QuestionBank
from app.agent.vectors import SentenceVectors
from app.core.config import Settings
from app.core.vocabulary import Vocabulary
from app.retrieval.coverage import CardLexiconCache
from app.retrieval.retriever import Retriever
from app.safety.emergency import EmergencyDetector


@dataclass
class AgentDeps:
    settings: Settings
    retriever: Retriever
    generator: Generator
    vectors: SentenceVectors
    detector: EmergencyDetector
    lexicon: CardLexiconCache
    vocabulary: Vocabulary
    model: dict[str, Any]
    bank: QuestionBank
    intents: IntentModel | None = None
    examples: Any = ExampleBank.empty  # () -> the example questions of the served build
    sentences: Any = None  # the extractive generator: scores card sentences for a question
    card_ranker: CardRanker | None = None  # orders the retrieved cards (None: hand-set lifts)
