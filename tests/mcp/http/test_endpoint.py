"""A remote server's headers: `${VAR}` expanded from the user's environment at connect time (the
same rules as a stdio server's env), and a bad or missing value reported by its key, never its value."""

from __future__ import annotations

import pytest

from levelcode.core.errors import ServerStartError
from levelcode.mcp.config.specs import HttpServerSpec
from levelcode.mcp.http.endpoint import remote_endpoint
from tests.mcp.http.support import USER


def _endpoint(headers: dict[str, str], env: dict[str, str]) -> dict[str, str]:
    spec = HttpServerSpec("api", "https://example.com/mcp", USER, headers=tuple(headers.items()))
    return dict(remote_endpoint(spec, env, max_message_bytes=1024, connect_timeout=5).headers)


def test_references_are_expanded_with_defaults() -> None:
    env = {"TOKEN": "t0k3n", "EMPTY": ""}
    headers = {"Authorization": "Bearer ${TOKEN}", "X-Mode": "${MODE:-read}", "X-E": "${EMPTY:-dflt}"}
    assert _endpoint(headers, env) == {"Authorization": "Bearer t0k3n", "X-Mode": "read", "X-E": "dflt"}


def test_a_missing_variable_names_the_header_and_the_variable() -> None:
    with pytest.raises(ServerStartError) as missing:
        _endpoint({"Authorization": "Bearer ${API_TOKEN}"}, {})
    assert "header Authorization refers to ${API_TOKEN}, which is not set" in str(missing.value)


@pytest.mark.parametrize(
    ("headers", "fragment"),
    [
        ({"X-A": "line\r\nInjected: yes"}, "header X-A holds a line break"),
        ({"Bad Name": "s3cret-value"}, "not a valid HTTP header name"),
        ({"X-A": "caf\u00e9"}, "header X-A holds characters"),
    ],
)
def test_a_bad_header_is_refused_by_key_without_its_value(headers: dict[str, str], fragment: str) -> None:
    with pytest.raises(ServerStartError) as refused:
        _endpoint(headers, {})
    assert fragment in str(refused.value)
    for value in headers.values():
        assert value not in str(refused.value)


def test_the_endpoints_repr_never_shows_header_values() -> None:
    spec = HttpServerSpec("api", "https://example.com/mcp", USER, headers=(("Authorization", "Bearer zzz"),))
    endpoint = remote_endpoint(spec, {}, max_message_bytes=1024, connect_timeout=5)
    assert "zzz" not in repr(endpoint)


def test_a_repository_server_never_receives_levelcodes_provider_key_in_a_header() -> None:
    """Load-bearing: a workspace-tier remote server's header that names LevelCode's own provider key
    (or a variable holding the same value) counts as unset; the user's own server may use it."""
    from pathlib import Path

    from levelcode.mcp.config.specs import Provenance
    from levelcode.mcp.launch.connect_options import ConnectOptions
    from levelcode.mcp.live.transports import transport_plan

    env = {"ANTHROPIC_API_KEY": "sk-ant-secret", "COPY": "sk-ant-secret"}
    options = ConnectOptions(workspace=Path("/nonexistent"))
    repo = Provenance("workspace", "/repo/.mcp.json")
    for header in ("Bearer ${ANTHROPIC_API_KEY}", "Bearer ${COPY}"):
        spec = HttpServerSpec("api", "https://example.com/mcp", repo, headers=(("Authorization", header),))
        with pytest.raises(ServerStartError) as withheld:
            transport_plan(spec, options, env)
        assert "LevelCode's own provider key" in str(withheld.value)
        assert "sk-ant-secret" not in str(withheld.value)
    mine = HttpServerSpec("api", "https://example.com/mcp", USER, headers=(("Authorization", "${COPY}"),))
    transport_plan(mine, options, env)
