"""Settings: the only place that reads the environment.

Every other module receives a `Settings` instance. Cross-field rules live here as
validators so a bad configuration fails at start-up with a message naming the variable.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ROOT = Path(__file__).resolve().parents[2]

# Bumped whenever the row format written by ingest changes; an index built with another
# schema version is never served (see app.store.index.check_compatible).
SCHEMA_VERSION = 3

# EMBEDDING_MODEL values that name a model shipped inside an installed package.
PACKAGED_MODEL = "packaged:all-MiniLM-L6-v2"  # sentence-transformers, English
USE_MODEL = "use-multilingual-v3"  # Universal Sentence Encoder multilingual (pt-BR)

_COLLECTION_CHARS = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]*[a-zA-Z0-9]$")


class Settings(BaseSettings):
    """Service configuration. Each field maps to the upper-case environment variable."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", case_sensitive=False)

    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"

    # Corpus and chunking (characters).
    corpus_dir: Path = ROOT / "kb" / "cards"
    chunk_size: int = Field(default=500, description="CHUNK_SIZE: subchunk budget, characters")
    chunk_overlap: int = Field(default=50, description="CHUNK_OVERLAP: overlap, characters")

    # Embeddings.
    # Default chosen by measurement (README, "Choosing the embedding model"): the English
    # MiniLM ranks pt-BR questions poorly and cannot separate out-of-scope ones.
    embedding_model: str = USE_MODEL
    embedding_batch_size: int = Field(default=64, ge=1, le=1024)
    torch_threads: int = Field(
        default=0, ge=0, description="threads of the embedding forward pass; 0 = all cores"
    )

    # Store.
    chroma_mode: Literal["embedded", "http"] = "embedded"
    chroma_path: Path = ROOT / "data" / "chroma"
    chroma_host: str = "localhost"
    chroma_port: int = Field(default=8001, ge=1, le=65535)
    chroma_timeout_s: float = Field(default=10.0, gt=0)
    chroma_retries: int = Field(default=2, ge=0, le=10)
    collection_prefix: str = "cards"
    ingest_lock_ttl_s: int = Field(default=60, ge=5)

    # Retrieval.
    top_k: int = Field(default=4, ge=1, le=20)
    overfetch_multiple: int = Field(default=4, ge=1, le=50)
    overfetch_max: int = Field(default=200, ge=1, le=5000)
    min_similarity: float = Field(default=0.25, ge=-1.0, le=1.0)
    retrieval_mode: Literal["dense", "hybrid", "bm25"] = "dense"
    rrf_k: int = Field(default=60, ge=1, le=10_000)
    rrf_weight_dense: float = Field(default=1.0, ge=0.0, le=10.0)
    rrf_weight_bm25: float = Field(default=0.3, ge=0.0, le=10.0)
    reranker_model: str = Field(default="", description="RERANKER_MODEL: empty = no reranker")
    rerank_candidates: int = Field(default=12, ge=1, le=200)

    # Generation.
    generator: Literal["extractive", "openai"] = "extractive"
    prompt_chunk_max_chars: int = Field(default=600, ge=100, le=20_000)
    extractive_max_sentences: int = Field(default=4, ge=1, le=12)
    extractive_min_sentence_score: float = Field(default=0.30, ge=-1.0, le=1.0)
    grounding_min_similarity: float = Field(default=0.45, ge=-1.0, le=1.0)
    llm_base_url: str = "http://127.0.0.1:11434/v1"
    llm_model: str = "qwen2.5:7b-instruct"
    llm_api_key: SecretStr = SecretStr("")
    llm_timeout_s: float = Field(default=60.0, gt=0)
    llm_retries: int = Field(default=2, ge=0, le=5)
    llm_temperature: float = Field(default=0.0, ge=0.0, le=2.0)

    # HTTP server.
    gunicorn_bind: str = "127.0.0.1:8000"
    web_concurrency: int = Field(default=2, ge=1, le=32)
    gunicorn_timeout_s: int = Field(default=120, ge=5)

    # Access.
    api_key: SecretStr = Field(
        default=SecretStr(""), description="API_KEY: when set, /api routes need X-API-Key"
    )
    cors_origins: str = Field(default="", description="CORS_ORIGINS: comma list; empty = closed")
    rate_limit_per_minute: int = Field(
        default=0, ge=0, description="requests per client IP per minute per worker; 0 = off"
    )
    max_body_bytes: int = Field(default=16_384, ge=1024, le=10_000_000)

    # Operations: request deadline, trusted proxy.
    request_deadline_s: float = Field(
        default=10.0,
        gt=0,
        le=300,
        description="REQUEST_DEADLINE_S: an /api request answers (503 at worst) within this",
    )
    forwarded_allow_ips: str = Field(
        default="127.0.0.1,::1",
        description="FORWARDED_ALLOW_IPS: proxies whose X-Forwarded-For gunicorn trusts",
    )

    @property
    def cors_origin_list(self) -> list[str]:
        return [o.strip() for o in self.cors_origins.split(",") if o.strip()]

    @field_validator("chunk_size", "chunk_overlap")
    @classmethod
    def _positive(cls, value: int, info: object) -> int:
        if value <= 0:
            name = getattr(info, "field_name", "value").upper()
            raise ValueError(f"{name} must be a positive number of characters, got {value}")
        return value

    @field_validator("collection_prefix")
    @classmethod
    def _prefix_chars(cls, value: str) -> str:
        # The longest derived name adds about 40 characters; Chroma allows 3-512.
        if not (3 <= len(value) <= 400) or not _COLLECTION_CHARS.match(value):
            raise ValueError(
                "COLLECTION_PREFIX must be 3-400 characters of [a-zA-Z0-9._-], starting and "
                f"ending with a letter or digit, got {value!r}"
            )
        return value

    @model_validator(mode="after")
    def _overlap_below_size(self) -> Settings:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(
                f"CHUNK_OVERLAP ({self.chunk_overlap}) must be smaller than "
                f"CHUNK_SIZE ({self.chunk_size})"
            )
        return self

    @model_validator(mode="after")
    def _worker_timeout_above_deadline(self) -> Settings:
        if self.gunicorn_timeout_s <= self.request_deadline_s:
            raise ValueError(
                f"GUNICORN_TIMEOUT_S ({self.gunicorn_timeout_s}) must be greater than "
                f"REQUEST_DEADLINE_S ({self.request_deadline_s})"
            )
        return self


def settings_from_environment() -> Settings:
    """Settings from environment variables only, ignoring any .env file: for tools whose
    results must not depend on a developer's local .env (evaluation, benchmarks)."""
    return Settings(_env_file=None)  # type: ignore[call-arg]


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
