"""From an API failure to the error a user reads: the right class, the API's own words, what to do."""

from __future__ import annotations

import pytest

from levelcode.core.errors import ContextTooLong, ProviderAuthError, ProviderError, ProviderRequestError
from levelcode.providers.base import ProviderSettings
from levelcode.providers.failures import ApiFailure, provider_error

ANTHROPIC = ProviderSettings("anthropic", "claude-sonnet-5-5", None, "k")
OLLAMA = ProviderSettings("openai", "llama3", "http://localhost:11434/v1", "k")


@pytest.mark.parametrize(
    ("failure", "error_class", "status"),
    [
        (ApiFailure(None, "Connection refused"), ProviderError, None),
        (ApiFailure(200, "Overloaded"), ProviderError, None),
        (ApiFailure(401, "invalid x-api-key"), ProviderAuthError, None),
        (ApiFailure(403, "no access"), ProviderAuthError, None),
        (ApiFailure(400, "bad tools"), ProviderRequestError, 400),
        (ApiFailure(404, "model: x"), ProviderRequestError, 404),
        (ApiFailure(400, "no such model", code="model_not_found"), ProviderRequestError, 400),
        (ApiFailure(429, "slow down"), ProviderRequestError, 429),
        (ApiFailure(503, "down"), ProviderRequestError, 503),
        (ApiFailure(400, "prompt is too long: 208310 tokens > 200000 maximum"), ContextTooLong, 400),
        (ApiFailure(400, "This model's maximum context length is 8192 tokens."), ContextTooLong, 400),
        (ApiFailure(400, "too many tokens", code="context_length_exceeded"), ContextTooLong, 400),
        (ApiFailure(413, "Prompt is too long"), ContextTooLong, 413),
    ],
)
def test_each_failure_gets_its_class_and_keeps_the_api_message(
    failure: ApiFailure, error_class: type[ProviderError], status: int | None
) -> None:
    error = provider_error(failure, ANTHROPIC)
    assert type(error) is error_class
    assert failure.message in str(error)
    assert getattr(error, "status", None) == status


def test_a_bad_key_says_where_the_key_comes_from() -> None:
    message = str(provider_error(ApiFailure(401, "invalid x-api-key"), ANTHROPIC))
    assert "ANTHROPIC_API_KEY" in message
    assert '"apiKey"' in message


def test_an_unknown_model_names_model_provider_and_endpoint() -> None:
    message = str(provider_error(ApiFailure(404, "model 'llama3' not found"), OLLAMA))
    assert "'llama3'" in message
    assert "openai" in message
    assert "http://localhost:11434/v1" in message
    assert "base URL" in message  # a 404 from a local server may be a wrong URL instead


def test_retryable_failures_say_they_were_retried() -> None:
    assert "after 2 retries" in str(provider_error(ApiFailure(500, "boom"), ANTHROPIC))


def test_long_or_multiline_api_messages_are_clipped_to_one_line() -> None:
    message = str(provider_error(ApiFailure(400, "<html>\n" + "x" * 5000), ANTHROPIC))
    assert "\n" not in message
    assert len(message) < 1200


@pytest.mark.parametrize(
    ("message", "window"),
    [
        ("prompt is too long: 208310 tokens > 200000 maximum", 200_000),
        ("This model's maximum context length is 8192 tokens. However, your messages resulted in", 8192),
        ("Prompt is too long", None),
    ],
)
def test_a_too_long_answer_names_the_window_when_the_api_does(message: str, window: int | None) -> None:
    error = provider_error(ApiFailure(400, message), ANTHROPIC)
    assert isinstance(error, ContextTooLong)
    assert error.window == window
