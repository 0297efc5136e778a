"""What of an entry may be printed. Load-bearing direction: no written header value (nor a
written-out OAuth client secret) survives into what is shown, whatever its shape. The second
corpus: what is no secret stays readable — the header's name, a leading auth scheme, each
`${VAR}` reference — so the user can tell which header and which variable it is."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.config.shown_values import (
    MASK,
    masked_value,
    shown_entry,
    shown_header,
    shown_header_text,
)

HIDDEN = {
    "bearer token": ("Authorization", "Bearer sk-live-abc123", "Authorization: Bearer ****"),
    "bare key": ("X-Api-Key", "abc123", "X-Api-Key: ****"),
    "two words": ("X-Note", "hello world", "X-Note: ****"),
    "a scheme word alone": ("Authorization", "Bearer", "Authorization: ****"),
    "text around a reference": ("Cookie", "sid=abc; t=${TOKEN}", "Cookie: ****${TOKEN}"),
    "a default's text": ("Authorization", "Bearer ${T:-dev-secret}", "Authorization: Bearer ${T:-****}"),
    "basic": ("Authorization", "Basic dXNlcjpwYXNz", "Authorization: Basic ****"),
}


@pytest.mark.parametrize(("name", "value", "shown"), HIDDEN.values(), ids=HIDDEN.keys())
def test_a_written_header_value_is_masked(name: str, value: str, shown: str) -> None:
    assert shown_header(name, value) == shown


KEPT = {
    "a reference": ("Authorization", "Bearer ${API_TOKEN}"),
    "a bare reference": ("X-Api-Key", "${API_KEY}"),
    "an empty default": ("X-Team", "${TEAM:-}"),
}


@pytest.mark.parametrize(("name", "value"), KEPT.values(), ids=KEPT.keys())
def test_references_and_names_stay_readable(name: str, value: str) -> None:
    assert shown_header(name, value) == f"{name}: {value}"


@given(st.text(min_size=1).filter(lambda s: s.strip() and "${" not in s))
def test_no_written_value_survives(value: str) -> None:
    secret = value.strip()
    shown = masked_value(value)
    assert secret not in shown.removeprefix("Bearer ").removeprefix("Basic ") or secret in MASK


def test_an_error_shows_a_typed_header_by_name_only() -> None:
    assert shown_header_text("Authorization: Bearer sk-1") == "Authorization: Bearer ****"
    assert shown_header_text("Authorization Bearer sk-1") == MASK  # no name to show: all masked
    assert shown_header_text(": sk-1") == MASK


def test_an_entry_is_shown_with_its_headers_and_client_secret_masked() -> None:
    entry = {
        "url": "https://a.example/mcp",
        "headers": {"Authorization": "Bearer sk-1", "X-Ref": "${K}"},
        "oauth": {"clientId": "app", "clientSecret": "s3cret"},
    }
    assert shown_entry(entry) == {
        "url": "https://a.example/mcp",
        "headers": {"Authorization": "Bearer ****", "X-Ref": "${K}"},
        "oauth": {"clientId": "app", "clientSecret": MASK},
    }
    assert entry["headers"] == {"Authorization": "Bearer sk-1", "X-Ref": "${K}"}  # a copy
    assert shown_entry(None) is None
