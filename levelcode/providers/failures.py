"""Turns an API failure (status, the API's own message) into a LevelCode `ProviderError` a user can act on.

Pure: each provider module extracts an `ApiFailure` from its SDK's exception, once, at the edge,
and this module decides the error class and the words.

    status None (no answer)    → ProviderError          "could not reach …" / "broke in the middle …"
    status < 400 (error event in a started stream) → ProviderError
    401, 403                   → ProviderAuthError      names the key's env var and settings key
    404, or code model_not_found → ProviderRequestError "model … not found by …"
    429, 5xx (after retries)   → ProviderRequestError   "… after N retries"
    400/413 "prompt is too long", context_length_exceeded → ContextTooLong (compaction can help)
    any other 4xx (e.g. 400)   → ProviderRequestError   the API's own message
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from levelcode.core.errors import ContextTooLong, ProviderAuthError, ProviderError, ProviderRequestError
from levelcode.providers.base import ProviderSettings
from levelcode.providers.keys import DEFAULT_BASE_URLS, SETTINGS_KEY, key_env_vars, missing_key_message

PURE = True

MAX_MESSAGE_CHARS = 1000
# How the APIs say a prompt is over the window: Anthropic "prompt is too long: N tokens > M
# maximum"; OpenAI and compatible servers code `context_length_exceeded`, "maximum context length".
_TOO_LONG_WORDS = ("prompt is too long", "maximum context length", "context length", "context window")
_WINDOW_PATTERNS = (r"> ?([\d,]+) maximum", r"maximum context length is ([\d,]+)")


@dataclass(frozen=True)
class ApiFailure:
    status: int | None  # None: no HTTP answer at all (connection refused, timeout, broken stream)
    message: str  # the API's own message when it sent one, else the best text there is
    code: str | None = None
    mid_stream: bool = False  # the response had started arriving when it failed


def endpoint(settings: ProviderSettings) -> str:
    return settings.base_url or DEFAULT_BASE_URLS[settings.provider]


def provider_error(failure: ApiFailure, settings: ProviderSettings) -> ProviderError:
    message = _clip(failure.message)
    status = failure.status
    if status is None and failure.mid_stream:
        return ProviderError(
            f"The connection to {settings.provider} at {endpoint(settings)} broke in the middle of "
            f"the response: {message}"
        )
    if status is None:
        return ProviderError(
            f"Could not reach {settings.provider} at {endpoint(settings)} "
            f"(gave up after {settings.max_retries} retries): {message}"
        )
    if status < 400:  # an error event inside a stream that had started well
        return ProviderError(f"{settings.provider} broke off the response with an error: {message}")
    if status in (401, 403):
        return ProviderAuthError(_auth_message(status, message, settings))
    if status == 404 or failure.code == "model_not_found":
        return ProviderRequestError(_not_found_message(status, message, settings), status=status)
    if status in (400, 413) and is_context_overflow(failure):
        return ContextTooLong(
            f"{settings.provider} refused the request (HTTP {status}): the conversation no longer fits "
            f"the model's context window: {message}",
            status=status,
            window=named_window(failure.message),
        )
    if status == 429 or status >= 500:
        kind = "rate limit" if status == 429 else "server error"
        return ProviderRequestError(
            f"{settings.provider} {kind} (HTTP {status}), still failing after "
            f"{settings.max_retries} retries: {message}",
            status=status,
        )
    return ProviderRequestError(
        f"{settings.provider} refused the request (HTTP {status}): {message}", status=status
    )


def is_context_overflow(failure: ApiFailure) -> bool:
    if failure.code == "context_length_exceeded":
        return True
    text = failure.message.lower()
    return any(words in text for words in _TOO_LONG_WORDS)


def named_window(message: str) -> int | None:
    """The window an API's "too long" message names ("… > 200000 maximum"), if it names one."""
    for pattern in _WINDOW_PATTERNS:
        found = re.search(pattern, message)
        if found:
            return int(found.group(1).replace(",", ""))
    return None


def stream_incomplete_error(settings: ProviderSettings) -> ProviderError:
    return ProviderError(
        f"{settings.provider} at {endpoint(settings)} ended the response before it was complete; "
        "nothing from it was kept"
    )


def connection_detail(exc: BaseException) -> str:
    """An SDK's connection error with the transport's reason (the SDK's own text is often bare)."""
    cause = exc.__cause__
    return f"{exc} ({type(cause).__name__}: {cause})" if cause is not None else str(exc)


def missing_key_error(settings: ProviderSettings) -> ProviderAuthError:
    return ProviderAuthError(missing_key_message(settings.provider, settings.base_url))


def _auth_message(status: int, message: str, settings: ProviderSettings) -> str:
    names = " or ".join(key_env_vars(settings.provider, settings.base_url))
    problem = "rejected the API key" if status == 401 else "refused access with this API key"
    return (
        f"{settings.provider} at {endpoint(settings)} {problem} (HTTP {status}): {message} "
        f'-- check {names}, or "{SETTINGS_KEY}" in your settings.json.'
    )


def _not_found_message(status: int, message: str, settings: ProviderSettings) -> str:
    return (
        f"Model {settings.model!r} was not found by {settings.provider} at {endpoint(settings)} "
        f'(HTTP {status}): {message} -- choose another with --model or "model" in settings.json'
        f"{'' if settings.provider == 'anthropic' else ', and check the base URL'}."
    )


def _clip(message: str) -> str:
    message = " ".join(message.split())
    return message if len(message) <= MAX_MESSAGE_CHARS else message[:MAX_MESSAGE_CHARS] + "…"
