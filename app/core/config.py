"""Settings: the only place that reads the environment.

Every other module receives a `Settings` instance. Cross-field rules live here as
validators so a bad configuration fails at start-up with a message naming the variable.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ROOT = Path(__file__).resolve().parents[2]

# EMBEDDING_MODEL values that name a model shipped inside an installed package.
PACKAGED_MODEL = "packaged:all-MiniLM-L6-v2"  # sentence-transformers, English
USE_MODEL = "use-multilingual-v3"  # Universal Sentence Encoder multilingual (pt-BR)

_COLLECTION_CHARS = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]*[a-zA-Z0-9]$")


class Settings(BaseSettings):
    """Service configuration. Each field maps to the upper-case environment variable."""

    # hide_input_in_errors: a failed cross-field check must not print API_KEY or LLM_API_KEY.
    model_config = SettingsConfigDict(
        env_file=".env", extra="ignore", case_sensitive=False, hide_input_in_errors=True
    )

    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"

    # Corpus and chunking (characters).
    corpus_dir: Path = ROOT / "kb" / "cards"
    chunk_size: int = Field(default=500, description="CHUNK_SIZE: subchunk budget, characters")
    chunk_overlap: int = Field(default=50, description="CHUNK_OVERLAP: overlap, characters")
    card_review_max_days: int = Field(
        default=365, ge=1, description="CARD_REVIEW_MAX_DAYS: ingest warns about older reviews"
    )

    # Embeddings.
    # Default chosen by measurement (README, "Choosing the embedding model"): the English
    # MiniLM ranks pt-BR questions poorly and cannot separate out-of-scope ones.
    embedding_model: str = USE_MODEL
    embedding_batch_size: int = Field(default=64, ge=1, le=1024)
    torch_threads: int = Field(
        default=0, ge=0, description="threads of the embedding forward pass; 0 = all cores"
    )
    vector_cache_dir: Path | None = Field(
        default=ROOT / ".cache" / "vectors",
        description="VECTOR_CACHE_DIR: where the banks' embeddings are kept between starts "
        "(app.core.vector_cache); empty to embed them at every start",
    )

    # Store.
    chroma_mode: Literal["embedded", "http"] = "embedded"
    chroma_path: Path = ROOT / "data" / "chroma"
    chroma_host: str = "localhost"
    chroma_port: int = Field(default=8001, ge=1, le=65535)
    chroma_timeout_s: float = Field(default=10.0, gt=0)
    chroma_ingest_timeout_s: float = Field(
        default=30.0,
        gt=0,
        description="CHROMA_INGEST_TIMEOUT_S: per store call of an ingest, seconds. Its bulk "
        "writes (5,000 rows a call, ~5 s on a quiet host) timed out at the serving calls' "
        "CHROMA_TIMEOUT_S on a busy one; an ingest uses the larger of the two",
    )
    chroma_retries: int = Field(default=2, ge=0, le=10)
    collection_prefix: str = "cards"
    ingest_lock_ttl_s: int = Field(default=60, ge=5)

    # Retrieval.
    top_k: int = Field(default=4, ge=1, le=20)
    overfetch_multiple: int = Field(default=4, ge=1, le=50)
    overfetch_max: int = Field(default=200, ge=1, le=5000)
    min_similarity: float = Field(default=0.25, ge=-1.0, le=1.0)
    # Parent ranking (dense): best subchunk + RANK_CHUNK_BONUS for each other subchunk of
    # the same card among the RANK_WINDOW nearest rows. Measured in docs/benchmarks.md.
    rank_chunk_bonus: float = Field(default=0.025, ge=0.0, le=1.0)
    rank_window: int = Field(default=16, ge=1, le=5000)
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
    llm_deadline_s: float = Field(
        default=20.0, gt=0, le=600, description="LLM_DEADLINE_S: whole model path, retries included"
    )
    llm_temperature: float = Field(default=0.0, ge=0.0, le=2.0)

    # HTTP server.
    gunicorn_bind: str = "127.0.0.1:8000"
    web_concurrency: int = Field(default=2, ge=1, le=32)
    # Questions a worker works on at once (agent and search run on threads; the others
    # wait their turn). 0 = by the generator: 1 for the extractive answer, which is CPU work
    # and each worker has one core's worth (more threads only fight over the GIL: at 64
    # clients, p99 1.3 s with the 40 threads of the default pool, 0.67-0.76 s with 1 in
    # issue 17's runs; `make bench` reruns it, load section); 16 with a model, whose calls
    # wait on the network. A
    # store that stalls holds every question anyway (they all need it), and the store
    # deadline and the request backstop bound each one.
    pipeline_threads: int = Field(
        default=0,
        ge=0,
        le=64,
        description="PIPELINE_THREADS: questions a worker works on at once; 0 = by generator",
    )
    gunicorn_timeout_s: int = Field(default=120, ge=5)
    # The gunicorn master imports the heavy third-party libraries (Presidio, which imports
    # transformers and torch; spaCy; chromadb; LangGraph) and reads the Portuguese word
    # list once, before it forks the workers: measured 6.4 s of imports per process that
    # two workers otherwise paid side by side at every start (issue 29). No model, client
    # or thread is created before the fork (torch is imported, never run).
    preload_libraries: bool = Field(
        default=True,
        description="PRELOAD_LIBRARIES: the gunicorn master imports the libraries before "
        "forking the workers",
    )

    # Access.
    api_key: SecretStr = Field(
        default=SecretStr(""), description="API_KEY: when set, /api routes need X-API-Key"
    )
    cors_origins: str = Field(default="", description="CORS_ORIGINS: comma list; empty = closed")
    rate_limit_per_minute: int = Field(
        default=0, ge=0, description="requests per client IP per minute per worker; 0 = off"
    )
    max_body_bytes: int = Field(default=16_384, ge=1024, le=10_000_000)

    # Feedback and the gaps report (app/feedback). The URL may carry a password.
    feedback_database_url: SecretStr = Field(
        default=SecretStr(f"sqlite:///{ROOT / 'data' / 'feedback' / 'feedback.db'}"),
        description="FEEDBACK_DATABASE_URL: SQLAlchemy URL, sqlite:///... or postgresql+psycopg",
    )
    feedback_retention_days: int = Field(
        default=90, description="FEEDBACK_RETENTION_DAYS: answers and feedback kept, days"
    )
    feedback_queue_max: int = Field(
        default=1000, description="FEEDBACK_QUEUE_MAX: answer records waiting to be written"
    )
    admin_api_key: SecretStr = Field(
        default=SecretStr(""), description="ADMIN_API_KEY: opens /api/admin; empty = disabled"
    )

    @field_validator("feedback_database_url")
    @classmethod
    def _feedback_url(cls, value: SecretStr) -> SecretStr:
        from app.core.database_url import SecretSettingError, parse_database_url

        try:
            parse_database_url(value.get_secret_value())
        except ValueError as exc:  # raised outside pydantic, which would echo the password
            raise SecretSettingError(str(exc)) from None
        return value

    @field_validator("vector_cache_dir", mode="before")
    @classmethod
    def _vector_cache(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("feedback_retention_days")
    @classmethod
    def _retention(cls, value: int) -> int:
        if not 1 <= value <= 3650:
            raise ValueError(f"FEEDBACK_RETENTION_DAYS must be 1-3650 days, got {value}")
        return value

    @field_validator("feedback_queue_max")
    @classmethod
    def _queue_max(cls, value: int) -> int:
        if not 1 <= value <= 100_000:
            raise ValueError(f"FEEDBACK_QUEUE_MAX must be 1-100000 records, got {value}")
        return value

    @field_validator("admin_api_key")
    @classmethod
    def _admin_key(cls, value: SecretStr, info: ValidationInfo) -> SecretStr:
        from app.core.database_url import SecretSettingError

        key = value.get_secret_value()
        if key and len(key) < 16:
            raise SecretSettingError(
                f"ADMIN_API_KEY must be at least 16 characters, got {len(key)} "
                "(leave it empty to disable /api/admin)"
            )
        public = info.data.get("api_key")
        if key and isinstance(public, SecretStr) and key == public.get_secret_value():
            raise SecretSettingError(
                "ADMIN_API_KEY must differ from API_KEY: the public key must never open /api/admin"
            )
        return value

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
    def pipeline_concurrency(self) -> int:
        """PIPELINE_THREADS, or when 0: 1 for the extractive generator, 16 with a model."""
        if self.pipeline_threads:
            return self.pipeline_threads
        return 1 if self.generator == "extractive" else 16

    def for_ingest(self) -> Settings:
        """The same settings, with an ingest's store timeout: the larger of
        CHROMA_INGEST_TIMEOUT_S and CHROMA_TIMEOUT_S."""
        timeout_s = max(self.chroma_timeout_s, self.chroma_ingest_timeout_s)
        return self.model_copy(update={"chroma_timeout_s": timeout_s})

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
