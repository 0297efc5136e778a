"""The registry's answers parsed into small types. Load-bearing direction: an answer of the wrong
shape raises one `RegistryError` naming where (never a KeyError or a TypeError from deep inside),
and a page keeps every record it can read. The second corpus: every recorded real `server.json`
parses, and fields LevelCode does not know are ignored."""

from __future__ import annotations

from typing import Any

import pytest

from levelcode.core.errors import RegistryError
from levelcode.mcp.registry.documents import mentions, parse_page, parse_record, parse_server
from tests.support.mcp_registry import every_recorded, record, recorded


@pytest.mark.parametrize("doc", every_recorded(), ids=lambda doc: doc["name"])
def test_every_recorded_server_json_parses(doc: dict[str, Any]) -> None:
    server = parse_server(doc)
    assert server.name == doc["name"]
    assert len(server.packages) == len(doc.get("packages", []))
    assert len(server.remotes) == len(doc.get("remotes", []))


def test_a_record_carries_what_the_registry_says_of_it() -> None:
    parsed = parse_record(record(recorded("context7"), latest=False, status="deprecated"))
    assert (parsed.status, parsed.is_latest, parsed.published_at) == (
        "deprecated",
        False,
        "2026-08-31T12:00:00Z",
    )
    env = parsed.server.packages[0].environment[0]
    assert (env.name, env.input.secret, env.input.required) == ("CONTEXT7_API_KEY", True, False)


def test_a_positional_marked_fixed_takes_its_hint_as_its_word() -> None:
    """Published entries (Scrapling's) write `{"valueHint": "mcp", "isFixed": true}` for the word `mcp`."""
    argument = parse_server(recorded("scrapling")).packages[0].package_arguments[0]
    assert argument.input.value == "mcp"


def test_the_older_transport_spelling_of_a_remote_is_read() -> None:
    doc = {
        "name": "a.b/c",
        "version": "1.0.0",
        "remotes": [{"transport_type": "sse", "url": "https://x.example/sse"}],
    }
    assert parse_server(doc).remotes[0].transport == "sse"


@pytest.mark.parametrize(
    ("doc", "said"),
    [
        ({"name": "no-slash", "version": "1"}, "not a registry server name"),
        ({"name": "a.b/c d", "version": "1"}, "not a registry server name"),
        ({"name": "a.b/c", "version": 3}, "is not a version"),
        ({"name": "a.b/c", "version": "1", "packages": {}}, "packages is not a list"),
        ({"name": "a.b/c", "version": "1", "packages": ["npm"]}, "packages[0] is not an object"),
        ({"name": "a.b/c", "version": "1", "packages": [{"registryType": "npm"}]}, "identifier is missing"),
        (
            {
                "name": "a.b/c",
                "version": "1",
                "packages": [{"registryType": "npm", "identifier": "x", "version": 1}],
            },
            "version is not a string",
        ),
        (
            {
                "name": "a.b/c",
                "version": "1",
                "packages": [
                    {"registryType": "npm", "identifier": "x", "packageArguments": [{"type": "flag"}]}
                ],
            },
            "neither positional nor named",
        ),
        (
            {
                "name": "a.b/c",
                "version": "1",
                "packages": [
                    {"registryType": "npm", "identifier": "x", "packageArguments": [{"type": "named"}]}
                ],
            },
            "a named argument without a name",
        ),
        ({"name": "a.b/c", "version": "1", "remotes": [{"type": "sse"}]}, "url is missing"),
        (
            {
                "name": "a.b/c",
                "version": "1",
                "remotes": [{"type": "sse", "url": "https://x", "variables": []}],
            },
            "variables is not an object",
        ),
    ],
)
def test_a_wrong_shape_is_one_line_naming_where(doc: dict[str, Any], said: str) -> None:
    with pytest.raises(RegistryError, match=None) as raised:
        parse_server(doc)
    assert said in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_page_keeps_what_it_can_read_and_says_what_it_could_not() -> None:
    good = record(recorded("playwright-mcp"))
    page = parse_page({"servers": [good, {"server": {"name": 5}}, "x"], "metadata": {"nextCursor": "c1"}})
    assert [r.server.name for r in page.records] == ["io.github.microsoft/playwright-mcp"]
    assert page.next_cursor == "c1"
    assert len(page.unreadable) == 2


@pytest.mark.parametrize("doc", [[], {"servers": {}}, {"items": []}, None, "servers"])
def test_a_page_of_the_wrong_shape_raises(doc: object) -> None:
    with pytest.raises(RegistryError, match="not a list of servers"):
        parse_page(doc)


def test_no_cursor_means_the_last_page() -> None:
    assert parse_page({"servers": [], "metadata": {"nextCursor": ""}}).next_cursor is None
    assert parse_page({"servers": []}).next_cursor is None


def test_mentions_every_word_in_name_title_or_description() -> None:
    brave = parse_record(record(recorded("brave-search-mcp-server")))
    assert mentions(brave, ["brave", "web"])
    assert not mentions(brave, ["brave", "postgres"])
