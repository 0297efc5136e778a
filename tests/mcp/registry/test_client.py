"""The registry's REST API over real HTTP on 127.0.0.1 (tests/support/mcp_registry.py serves the
v0.1 shapes from the recorded server.json files). Load-bearing direction: every way a registry can
answer badly — not JSON, the wrong shape, an HTTP error, a redirect, a cursor that goes round, an
answer too large, no answer at all — is one `RegistryError` line naming the registry, and paging
ends. The second corpus: search, paging through the cursor, one version, `latest`."""

from __future__ import annotations

import socket

import pytest

from levelcode.core.errors import RegistryError
from levelcode.mcp.registry import client as client_module
from levelcode.mcp.registry.client import RegistryClient
from tests.support.mcp_registry import local_registry, recorded


def test_search_pages_through_the_cursor_until_it_has_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_module, "PAGE_SIZE", 3)
    with local_registry() as registry, RegistryClient(registry.url) as client:
        found = client.search("server", want=4)
        assert len(found.records) == 4
        assert found.more
        everything = client.search("server", want=None)
        assert not everything.more
        names = [r.server.name for r in everything.records]
        assert names == sorted(names)
        assert len(names) == len(set(names)) > 4
        assert all("server" in name.lower() for name in names)
    cursors = [line for line in registry.requests if "cursor=" in line]
    assert len(cursors) >= 3, "each next page was asked for with the cursor the last returned"
    assert all("version=latest" in line for line in registry.requests)


def test_a_filter_reads_every_page() -> None:
    with local_registry() as registry, RegistryClient(registry.url) as client:
        found = client.search(None, want=None, keep=lambda r: "web" in r.server.description.lower())
    assert {r.server.name for r in found.records} == {
        "io.github.brave/brave-search-mcp-server",
        "io.github.exa-labs/exa-mcp-server",
        "io.github.D4Vinci/Scrapling",
        "com.apify/apify-mcp-server",
    }


def test_one_version_and_the_latest() -> None:
    newer = {**recorded("server-everything"), "version": "2026.9.1"}
    with (
        local_registry(recorded("server-everything"), newer) as registry,
        RegistryClient(registry.url) as client,
    ):
        assert client.version("io.github.modelcontextprotocol/server-everything").server.version == "2026.9.1"
        old = client.version("io.github.modelcontextprotocol/server-everything", "2026.8.31")
        assert old.server.version == "2026.8.31"
        assert old.is_latest is False
    assert (
        "/v0.1/servers/io.github.modelcontextprotocol%2Fserver-everything/versions/2026.8.31"
        in registry.requests
    )


def test_a_missing_version_names_the_server_and_the_latest() -> None:
    with local_registry(recorded("context7")) as registry, RegistryClient(registry.url) as client:
        with pytest.raises(
            RegistryError, match=r"has no version 9\.9\.9 of io\.github\.upstash/context7; its latest"
        ):
            client.version("io.github.upstash/context7", "9.9.9")
        with pytest.raises(RegistryError, match="has no its latest version"):
            client.version("io.github.nobody/nothing")


@pytest.mark.parametrize(
    ("status", "body", "said"),
    [
        (200, b"<html>not json</html>", "not JSON"),
        (200, b'{"servers": "none"}', "not a list of servers"),
        (200, b"[]", "not a list of servers"),
        (500, b"{}", "answered HTTP 500"),
        (401, b"{}", "answered HTTP 401"),
    ],
)
def test_a_bad_page_is_one_line(status: int, body: bytes, said: str) -> None:
    with local_registry() as registry, RegistryClient(registry.url) as client:
        registry.answer("/v0.1/servers", status, body)
        with pytest.raises(RegistryError) as raised:
            client.search("x", want=5)
    assert said in str(raised.value)
    assert registry.url in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_bad_server_version_is_one_line() -> None:
    path = "/v0.1/servers/io.github.upstash%2Fcontext7/versions/latest"
    with local_registry() as registry, RegistryClient(registry.url) as client:
        registry.answer(
            path, 200, {"server": {"name": "io.github.upstash/context7", "version": "1", "packages": "npm"}}
        )
        with pytest.raises(RegistryError, match="packages is not a list"):
            client.version("io.github.upstash/context7")


def test_a_redirect_is_not_followed() -> None:
    with local_registry() as registry, RegistryClient(registry.url) as client:
        registry.answer("/v0.1/servers", 302, b"")
        with pytest.raises(RegistryError, match="redirects to"):
            client.search("x", want=1)


def test_a_cursor_that_goes_round_is_stopped() -> None:
    page = {"servers": [], "metadata": {"nextCursor": "same"}}
    with local_registry() as registry, RegistryClient(registry.url) as client:
        registry.answer("/v0.1/servers", 200, page)
        with pytest.raises(RegistryError, match="cursor it had returned before"):
            client.search("x", want=None)
    assert len(registry.requests) == 2


def test_an_answer_too_large_is_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_module, "MAX_ANSWER_BYTES", 1000)
    with (
        local_registry() as registry,
        RegistryClient(registry.url) as client,
        pytest.raises(RegistryError, match="answered with more than"),
    ):
        client.search(None, want=None)


def test_a_registry_that_never_answers_is_a_bounded_wait() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        with (
            RegistryClient(url, timeout=0.5) as client,
            pytest.raises(RegistryError, match=r"did not answer within 0\.5 s"),
        ):
            client.search("x", want=1)


def test_a_registry_that_is_not_there_is_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{taken.getsockname()[1]}"  # bound, not listening: refused
        with RegistryClient(url) as client, pytest.raises(RegistryError, match="could not be reached"):
            client.search("x", want=1)
