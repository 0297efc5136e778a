"""Which URLs share an origin (credentials go only there), which are plaintext to another machine
(the card names them), and how a URL is shown (never its query or user info).

Load-bearing direction: a different scheme, host or port is never the same origin, and http:// to
anything but loopback is always flagged."""

from __future__ import annotations

import pytest

from levelcode.mcp.http.origin import is_plaintext_remote, resolve_within_origin, same_origin, shown_url

SAME = [
    ("http://127.0.0.1:8000/mcp", "http://127.0.0.1:8000/other"),
    ("https://Example.com/mcp", "https://example.com:443/x"),
    ("http://example.com/mcp", "http://example.com:80/mcp"),
]
DIFFERENT = [
    ("http://127.0.0.1:8000/mcp", "http://127.0.0.1:8001/mcp"),
    ("http://example.com/mcp", "https://example.com/mcp"),
    ("https://example.com/mcp", "https://example.com.evil.test/mcp"),
    ("https://example.com/mcp", "https://evil.test/mcp"),
    ("http://localhost:8000/mcp", "http://127.0.0.1:8000/mcp"),
    ("https://example.com/mcp", "file:///etc/passwd"),
]


@pytest.mark.parametrize(("first", "second"), SAME)
def test_same_origin(first: str, second: str) -> None:
    assert same_origin(first, second)


@pytest.mark.parametrize(("first", "second"), DIFFERENT)
def test_not_the_same_origin(first: str, second: str) -> None:
    assert not same_origin(first, second)


def test_a_reference_is_resolved_only_within_the_origin() -> None:
    base = "http://127.0.0.1:9000/sse"
    assert resolve_within_origin(base, "/messages?session=1") == "http://127.0.0.1:9000/messages?session=1"
    assert resolve_within_origin(base, "//evil.test/messages") is None
    assert resolve_within_origin(base, "http://127.0.0.1:9001/messages") is None


@pytest.mark.parametrize(
    "url",
    ["http://example.com/mcp", "http://10.0.0.5:8080/mcp", "http://mcp.internal/", "HTTP://example.com"],
)
def test_plaintext_to_another_machine_is_flagged(url: str) -> None:
    assert is_plaintext_remote(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/mcp",
        "http://127.0.0.1:3000/mcp",
        "http://127.8.9.10/mcp",
        "http://localhost:3000/mcp",
        "http://[::1]:3000/mcp",
        "http://app.localhost/mcp",
    ],
)
def test_tls_or_loopback_is_not_flagged(url: str) -> None:
    assert not is_plaintext_remote(url)


def test_shown_url_drops_what_may_be_secret() -> None:
    shown = shown_url("https://user:pw@example.com:8443/mcp?api_key=s3cret#frag")
    assert shown == "https://example.com:8443/mcp"
