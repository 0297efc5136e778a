"""`WWW-Authenticate` as servers send it (RFC 6750, RFC 9728), and as they should not."""

from __future__ import annotations

import pytest

from levelcode.mcp.http.oauth.challenge import parse_challenge


def test_the_bearer_parameters_are_read() -> None:
    found = parse_challenge(
        'Bearer error="insufficient_scope", scope="files:read files:write", '
        'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", '
        'error_description="need \\"write\\""'
    )
    assert found.insufficient_scope
    assert found.scope == ("files:read", "files:write")
    assert found.resource_metadata == "https://mcp.example.com/.well-known/oauth-protected-resource"
    assert found.error_description == 'need "write"'


def test_bearer_among_other_challenges() -> None:
    found = parse_challenge('Basic realm="x", Bearer resource_metadata="https://a/b", scope=read')
    assert (found.resource_metadata, found.scope) == ("https://a/b", ("read",))


@pytest.mark.parametrize("header", [None, "", "Basic realm=x", "Bearer", "Bearerish scope=x", "Bearer ,,,=="])
def test_nothing_usable_is_an_empty_challenge(header: str | None) -> None:
    found = parse_challenge(header)
    assert (found.resource_metadata, found.scope, found.error) == (None, None, None)
