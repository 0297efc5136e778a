"""A registry's remote server made into an entry. Load-bearing direction (the attack): a value
filled into the URL template never chooses the host — not a path variable right after the host
(`https://api.example.com{path}` with `.evil.example`), not a host variable with no fixed domain
after it (`https://{host}/mcp`), not a value that carries `/`, `@`, `?` or `#` — and a remote over
plain http:// to another machine is refused. The second corpus: tenants, ports and path segments
filled as the registry's own example does."""

from __future__ import annotations

from typing import Any

import pytest

from levelcode.core.errors import RegistryError
from levelcode.mcp.config.edit import validate_entry
from levelcode.mcp.config.registry_entry import RegistryOrigin
from levelcode.mcp.registry.documents import Remote, parse_server
from levelcode.mcp.registry.inputs import Filler
from levelcode.mcp.registry.remote_entry import remote_entry

ORIGIN = RegistryOrigin("https://registry.example", "a.b/c", "1.0.0")


def remote(url: str, variables: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    spec = {"type": "streamable-http", "url": url, "variables": variables or {}, **extra}
    return {"name": "a.b/c", "version": "1.0.0", "remotes": [spec]}


def entry_for(doc: dict[str, Any], **given: str) -> dict[str, object]:
    server = parse_server(doc)
    picked = server.remotes[0]
    assert isinstance(picked, Remote)
    filler = Filler({key: [value] for key, value in given.items()})
    made = remote_entry(server, picked, filler, ORIGIN)
    assert not filler.missing
    return made.entry


TENANT = {"tenant": {"isRequired": True}}


@pytest.mark.parametrize(
    ("url", "variables", "given", "expected"),
    [
        (
            "https://{tenant}.api.example.com/mcp",
            TENANT,
            {"tenant": "acme"},
            "https://acme.api.example.com/mcp",
        ),
        (
            "https://{tenant}.api.example.com/mcp",
            TENANT,
            {"tenant": "eu.acme"},
            "https://eu.acme.api.example.com/mcp",
        ),
        (
            "https://api.example.com:{port}/mcp",
            {"port": {"default": "8443", "isRequired": True}},
            {},
            "https://api.example.com:8443/mcp",
        ),
        (
            "https://api.example.com/{ws}/mcp",
            {"ws": {"isRequired": True}},
            {"ws": "team-1"},
            "https://api.example.com/team-1/mcp",
        ),
        (
            "https://api.example.com/mcp?ws={ws}",
            {"ws": {"isRequired": True}},
            {"ws": "a_b"},
            "https://api.example.com/mcp?ws=a_b",
        ),
        (
            "http://127.0.0.1:{port}/mcp",
            {"port": {"isRequired": True}},
            {"port": "9000"},
            "http://127.0.0.1:9000/mcp",
        ),
    ],
)
def test_template_values_fill_their_place(
    url: str, variables: dict[str, Any], given: dict[str, str], expected: str
) -> None:
    entry = entry_for(remote(url, variables), **given)
    assert entry["url"] == expected
    validate_entry("remote", entry, file="settings.json")


@pytest.mark.parametrize(
    ("url", "variables", "given", "said"),
    [
        # a path variable glued to the host would extend it
        (
            "https://api.example.com{path}",
            {"path": {"isRequired": True}},
            {"path": ".evil.example"},
            "choose the host",
        ),
        # a host variable with nothing fixed after it is the whole host
        ("https://{host}/mcp", {"host": {"isRequired": True}}, {"host": "evil.example"}, "choose the host"),
        ("https://{tenant}.com/mcp", TENANT, {"tenant": "evil"}, "choose the host"),
        (
            "https://{a}.{b}.example.com/mcp",
            {"a": {"isRequired": True}, "b": {"isRequired": True}},
            {"a": "x", "b": "y"},
            "choose the host",
        ),
        (
            "https://{tenant}.api.example.com/mcp",
            TENANT,
            {"tenant": "evil.example/x?"},
            "not a host name label",
        ),
        (
            "https://{tenant}.api.example.com/mcp",
            TENANT,
            {"tenant": "evil.example#"},
            "not a host name label",
        ),
        (
            "https://{tenant}.api.example.com/mcp",
            TENANT,
            {"tenant": "a@evil.example"},
            "not a host name label",
        ),
        (
            "https://api.example.com/{ws}",
            {"ws": {"isRequired": True}},
            {"ws": "../admin"},
            "not one path segment",
        ),
        ("https://api.example.com/{ws}", {"ws": {"isRequired": True}}, {"ws": "a/b"}, "not one path segment"),
        (
            "https://api.example.com/{ws}",
            {"ws": {"isRequired": True}},
            {"ws": "%2e%2e"},
            "not one path segment",
        ),
        (
            "https://api.example.com:{port}/",
            {"port": {"isRequired": True}},
            {"port": "443@evil.example"},
            "not a port",
        ),
        ("https://user@{tenant}.api.example.com/", TENANT, {"tenant": "a"}, "user name before the host"),
        (
            "{base}/mcp",
            {"base": {"isRequired": True}},
            {"base": "https://evil.example"},
            "does not start with https://",
        ),
        ("https://api.example.com/{undeclared}", {}, {}, "does not declare"),
        ("http://mcp.example.com/mcp", {}, {}, "plain http:// to another machine"),
    ],
)
def test_a_value_never_chooses_the_host(
    url: str, variables: dict[str, Any], given: dict[str, str], said: str
) -> None:
    with pytest.raises(RegistryError) as raised:
        entry_for(remote(url, variables), **given)
    assert said in str(raised.value)


def test_a_default_from_the_registry_is_held_to_the_same_rule() -> None:
    """The registry's own default for a variable gets no more room than a typed value."""
    doc = remote(
        "https://api.example.com{path}", {"path": {"default": ".evil.example/mcp", "isRequired": True}}
    )
    with pytest.raises(RegistryError, match="choose the host"):
        entry_for(doc)


def test_a_secret_url_variable_is_refused() -> None:
    doc = remote("https://api.example.com/{key}", {"key": {"isSecret": True, "isRequired": True}})
    with pytest.raises(RegistryError, match="its URL holds a secret"):
        entry_for(doc, key="${K}")


def test_headers_are_written_with_secrets_as_references() -> None:
    headers = [
        {
            "name": "Authorization",
            "value": "Bearer {token}",
            "isRequired": True,
            "variables": {"token": {"isSecret": True, "isRequired": True}},
        },
        {"name": "X-Region", "default": "eu", "isRequired": True},
        {"name": "X-Optional"},
    ]
    entry = entry_for(remote("https://api.example.com/mcp", headers=headers))
    assert entry["headers"] == {"Authorization": "Bearer ${TOKEN}", "X-Region": "eu"}


@pytest.mark.parametrize("name", ["X Bad", "X:Y", "", "X\nY"])
def test_a_header_name_that_is_not_one_is_refused(name: str) -> None:
    doc = remote(
        "https://api.example.com/mcp", headers=[{"name": name or " ", "default": "1", "isRequired": True}]
    )
    with pytest.raises(RegistryError, match="not a header name"):
        entry_for(doc)


def test_a_header_value_with_a_newline_is_refused() -> None:
    from levelcode.core.errors import ConfigError

    doc = remote("https://api.example.com/mcp", headers=[{"name": "X-A", "isRequired": True}])
    with pytest.raises(ConfigError, match="control characters"):
        entry_for(doc, **{"X-A": "1\r\nX-Injected: 2"})
