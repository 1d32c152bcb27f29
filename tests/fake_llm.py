"""The fake OpenAI-compatible server lives in evaluation.fake_llm (the red-team runner
uses it too); tests import it from here."""

from evaluation.fake_llm import FakeLLM, answer, fake_llm

__all__ = ["FakeLLM", "answer", "fake_llm"]
