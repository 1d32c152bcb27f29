"""Feedback settings fail at start-up with a message naming the variable."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.core.config import ROOT, Settings
from app.core.database_url import SecretSettingError


def settings(**values: object) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[arg-type]


def test_defaults() -> None:
    s = settings()
    url = s.feedback_database_url.get_secret_value()
    assert url == f"sqlite:///{ROOT}/data/feedback/feedback.db"
    assert s.feedback_retention_days == 90 and s.admin_api_key.get_secret_value() == ""


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"feedback_retention_days": 0}, "FEEDBACK_RETENTION_DAYS must be 1-3650 days, got 0"),
        ({"feedback_queue_max": 0}, "FEEDBACK_QUEUE_MAX must be 1-100000 records, got 0"),
    ],
)
def test_bad_values_name_the_variable(values: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        settings(**values)


@pytest.mark.parametrize(
    ("values", "message", "secret"),
    [
        ({"feedback_database_url": "not a url"}, "is not a database URL", "not a url"),
        ({"feedback_database_url": "sqlite://"}, "must name a SQLite file", None),
        ({"feedback_database_url": "sqlite:///:memory:"}, "must name a SQLite file", None),
        ({"feedback_database_url": "mysql://u:pw-1@db/x"}, "unsupported database 'mysql'", "pw-1"),
        ({"feedback_database_url": "postgresql+psycopg2://u:pw-2@db/x"}, "unsupported", "pw-2"),
        ({"feedback_database_url": "postgresql://u:pw-3@db"}, "must name a database", "pw-3"),
        (
            {"admin_api_key": "short"},
            "ADMIN_API_KEY must be at least 16 characters, got 5",
            "short",
        ),
        (
            {"admin_api_key": "the-same-key-0123456", "api_key": "the-same-key-0123456"},
            "ADMIN_API_KEY must differ from API_KEY",
            "the-same-key-0123456",
        ),
    ],
)
def test_bad_secrets_name_the_variable_and_never_repeat_the_secret(
    values: dict[str, object], message: str, secret: str | None
) -> None:
    with pytest.raises(SecretSettingError, match=message) as caught:
        settings(**values)
    assert secret is None or secret not in str(caught.value)


def test_a_database_password_is_never_repeated_in_the_message() -> None:
    with pytest.raises(SecretSettingError) as caught:
        settings(feedback_database_url="mysql://u:hunter2-pw@db/x")
    assert "hunter2-pw" not in str(caught.value) and "***" in str(caught.value)


def test_postgresql_urls_go_through_psycopg3() -> None:
    from app.core.database_url import parse_database_url

    url = parse_database_url("postgresql://app:pw@db.internal:5432/feedback")
    assert url.drivername == "postgresql+psycopg" and url.database == "feedback"
