"""The generator for any OpenAI-compatible chat-completions endpoint (vLLM, Ollama,
llama.cpp server, OpenAI), falling back to the extractive answer."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import httpx
import numpy as np

from app.agent.context import context_block
from app.agent.generators.draft import Draft
from app.agent.generators.extractive import ExtractiveGenerator
from app.agent.generators.focus import Focus
from app.agent.prompts import prompt, repair_request
from app.agent.tunables import BACKOFF_FIRST_S, BACKOFF_MAX_S, REQUEST_MARGIN_S
from app.core.config import Settings
from app.core.errors import DeadlineExceeded
from app.retrieval.models import ContextChunk

log = logging.getLogger(__name__)


class LLMOutputError(ValueError):
    """The model's reply is not the JSON object we asked for."""


def parse_structured(content: str) -> tuple[str, list[str]]:
    try:
        data = json.loads(content)
    except json.JSONDecodeError as exc:
        raise LLMOutputError(f"not JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("answer"), str):
        raise LLMOutputError("JSON without a string 'answer'")
    citations = data.get("citations", [])
    if not isinstance(citations, list) or not all(isinstance(c, str) for c in citations):
        raise LLMOutputError("'citations' is not a list of strings")
    return data["answer"], citations


class OpenAICompatibleGenerator:
    """Any OpenAI-compatible chat-completions endpoint (vLLM, Ollama, llama.cpp server,
    OpenAI) in JSON mode. Bounded retries and one repair attempt for malformed JSON, all
    within LLM_DEADLINE_S; then a flagged fallback to the extractive answer."""

    name = "openai"

    def __init__(self, settings: Settings, fallback: ExtractiveGenerator):
        self.settings = settings
        self.fallback = fallback
        headers = {"content-type": "application/json"}
        key = settings.llm_api_key.get_secret_value()
        if key:
            headers["authorization"] = f"Bearer {key}"
        # The whole model path must also fit in the request's own deadline, with room left
        # for retrieval, verification and the extractive fallback.
        self.deadline_s = max(
            1.0, min(settings.llm_deadline_s, settings.request_deadline_s - REQUEST_MARGIN_S)
        )
        if self.deadline_s < settings.llm_deadline_s:
            log.warning(
                "LLM_DEADLINE_S=%g is capped to %g s by REQUEST_DEADLINE_S=%g; raise "
                "REQUEST_DEADLINE_S to give the model more time",
                settings.llm_deadline_s,
                self.deadline_s,
                settings.request_deadline_s,
            )
        self.client = httpx.Client(
            base_url=settings.llm_base_url.rstrip("/"),
            timeout=httpx.Timeout(settings.llm_timeout_s),
            headers=headers,
        )

    def _remaining(self, deadline: float) -> float:
        left = deadline - time.monotonic()
        if left <= 0:
            raise DeadlineExceeded(self.deadline_s, f"no answer within {self.deadline_s:g} s")
        return left

    def _complete(self, messages: list[dict[str, str]], deadline: float) -> str:
        body: dict[str, Any] = {
            "model": self.settings.llm_model,
            "messages": messages,
            "temperature": self.settings.llm_temperature,
            "response_format": {"type": "json_object"},
        }
        attempts = self.settings.llm_retries + 1
        for attempt in range(1, attempts + 1):
            timeout = min(self.settings.llm_timeout_s, self._remaining(deadline))
            try:
                response = self.client.post("/chat/completions", json=body, timeout=timeout)
                if response.status_code == 429 or response.status_code >= 500:
                    raise httpx.HTTPStatusError(
                        f"status {response.status_code}",
                        request=response.request,
                        response=response,
                    )
                response.raise_for_status()
                return str(response.json()["choices"][0]["message"]["content"])
            except (httpx.TransportError, httpx.HTTPStatusError) as exc:
                retriable = isinstance(exc, httpx.TransportError) or (
                    exc.response.status_code == 429 or exc.response.status_code >= 500
                )
                if not retriable or attempt == attempts:
                    raise
                backoff = min(BACKOFF_FIRST_S * 2 ** (attempt - 1), BACKOFF_MAX_S)
                if backoff >= self._remaining(deadline):
                    raise DeadlineExceeded(
                        self.deadline_s, "no time left for another attempt"
                    ) from exc
                time.sleep(backoff)
        raise AssertionError("unreachable")

    def generate(
        self, question: str, parents: list[ContextChunk], query_vector: np.ndarray, focus: Focus
    ) -> Draft:
        deadline = time.monotonic() + self.deadline_s
        context = context_block(parents, self.settings.prompt_chunk_max_chars)
        messages = prompt(context, question)
        try:
            content = self._complete(messages, deadline)
            try:
                text, cited = parse_structured(content)
            except LLMOutputError as first:
                log.warning("LLM reply was malformed (%s); asking once for a repair", first)
                messages += repair_request(content)
                text, cited = parse_structured(self._complete(messages, deadline))
            return Draft(text, cited, self.name)
        except (
            LLMOutputError,
            httpx.HTTPError,
            KeyError,
            IndexError,
            ValueError,
            TimeoutError,
        ) as exc:
            log.warning(
                "LLM generation failed (%s); using the extractive answer", type(exc).__name__
            )
            draft = self.fallback.generate(question, parents, query_vector, focus)
            draft.generator = "extractive-fallback"
            reason = (
                f"did not answer within {self.deadline_s:g} s"
                if isinstance(exc, TimeoutError)
                else f"could not give a valid answer ({type(exc).__name__})"
            )
            draft.warnings.append(
                f"the language model {reason}; showing the extractive answer instead"
            )
            return draft
