"""Which MCP Registry is asked, and the organisation's rules for it. Load-bearing direction: under
a policy that names its registry, no setting and no `--registry` reaches another one, and with
`mcpRegistryOnly` every server not added from that registry is blocked — a hand-written entry, one
from another registry, a repository's — whatever its name; a registry URL over plain http:// to
another machine is refused everywhere. The second corpus: the default, the user's own setting,
`--registry` for one command, and the organisation's own registry servers, which run."""

from __future__ import annotations

import pytest

from levelcode.core.errors import ConfigError
from levelcode.mcp.config.managed_servers import govern
from levelcode.mcp.config.registry_entry import RegistryOrigin, parse_registry_entry
from levelcode.mcp.config.registry_source import DEFAULT_REGISTRY, choose_registry
from levelcode.mcp.config.specs import HttpServerSpec, Provenance, StdioServerSpec
from levelcode.mcp.config.tiers import parse_user_settings
from levelcode.policy.managed_policy import NO_POLICY, parse_managed_policy
from tests.support.settings import settings_of

FILE = "/etc/levelcode/managed-settings.json"
SETTINGS = "/home/me/.config/levelcode/settings.json"
ORG = "https://mcp-registry.corp.example"
POLICY = parse_managed_policy({"mcpRegistry": ORG + "/", "mcpRegistryOnly": True}, file=FILE)
USER = Provenance("user", SETTINGS)


def test_the_default_is_the_official_registry() -> None:
    assert choose_registry(settings_of({}, NO_POLICY)).url == DEFAULT_REGISTRY


def test_the_users_setting_then_the_flag_choose_it() -> None:
    assert (
        choose_registry(settings_of({"mcpRegistry": "https://r.example/"}, NO_POLICY)).url
        == "https://r.example"
    )
    asked = choose_registry(
        settings_of({"mcpRegistry": "https://r.example"}, NO_POLICY), "https://other.example"
    )
    assert asked.url == "https://other.example"


@pytest.mark.parametrize(
    "url",
    [
        "http://registry.example",
        "ftp://registry.example",
        "registry.example",
        "https://",
        "https://r.example/?a=1",
    ],
)
def test_a_url_that_cannot_be_a_registry_is_refused(url: str) -> None:
    with pytest.raises(ConfigError):
        choose_registry(settings_of({"mcpRegistry": url}, NO_POLICY))
    with pytest.raises(ConfigError):
        choose_registry(settings_of({}, NO_POLICY), url)
    assert parse_managed_policy({"mcpRegistry": url}, file=FILE).closed


def test_plain_http_to_this_machine_is_allowed() -> None:
    assert choose_registry(settings_of({}, NO_POLICY), "http://127.0.0.1:8080").url == "http://127.0.0.1:8080"


def test_the_organisations_registry_wins_and_no_other_is_asked() -> None:
    chosen = choose_registry(settings_of({"mcpRegistry": "https://mine.example"}, POLICY))
    assert (chosen.url, chosen.fixed) == (ORG, True)
    with pytest.raises(ConfigError, match="--registry refused by your organisation's policy"):
        choose_registry(settings_of({}, POLICY), "https://registry.modelcontextprotocol.io")
    assert choose_registry(settings_of({}, POLICY), ORG + "/").url == ORG  # the same one may be named


def test_the_users_other_registry_is_reported_as_ignored() -> None:
    said = settings_of({"mcpRegistry": "https://mine.example"}, POLICY).problems
    assert [p.key for p in said] == ["mcpRegistry"]
    assert "ignored by your organisation's policy" in said[0].message


def test_registry_only_needs_a_registry() -> None:
    assert parse_managed_policy({"mcpRegistryOnly": True}, file=FILE).closed
    assert parse_managed_policy({"mcpRegistry": ORG, "mcpRegistryOnly": "yes"}, file=FILE).closed
    assert not POLICY.closed


def origin(url: str = ORG) -> RegistryOrigin:
    return RegistryOrigin(url, "io.github.a/b", "1.0.0")


MUST_BLOCK = [
    ("hand-written", StdioServerSpec("b", "npx", USER, args=("-y", "b@1.0.0"))),
    (
        "another registry",
        StdioServerSpec("b", "npx", USER, registry=origin("https://registry.modelcontextprotocol.io")),
    ),
    ("a repository's, hand-written", StdioServerSpec("b", "npx", Provenance("workspace", "/r/.mcp.json"))),
    ("a remote, hand-written", HttpServerSpec("r", "https://mcp.example.com/mcp", USER)),
    ("named like one of the registry's", StdioServerSpec("io.github.a/b", "npx", USER)),
]
MUST_PASS = [
    ("from the organisation's registry", StdioServerSpec("b", "npx", USER, registry=origin())),
    ("a remote from it", HttpServerSpec("r", "https://mcp.example.com/mcp", USER, registry=origin())),
    ("the policy's own", StdioServerSpec("req", "x", Provenance("organisation", FILE))),
]


@pytest.mark.parametrize(("why", "spec"), MUST_BLOCK, ids=[w for w, _ in MUST_BLOCK])
def test_registry_only_blocks(why: str, spec: StdioServerSpec | HttpServerSpec) -> None:
    (governed,) = govern([spec], POLICY)
    blocked = governed.organisation.blocked if governed.organisation else None
    assert blocked is not None, why
    assert "mcpRegistryOnly" in blocked


@pytest.mark.parametrize(("why", "spec"), MUST_PASS, ids=[w for w, _ in MUST_PASS])
def test_registry_only_passes(why: str, spec: StdioServerSpec | HttpServerSpec) -> None:
    (governed,) = govern([spec], POLICY)
    assert governed.organisation is None or governed.organisation.blocked is None, why


def test_the_entry_carries_its_origin_and_a_bad_one_is_a_problem_not_a_lost_server() -> None:
    entry = {"command": "npx", "registry": {"url": ORG + "/", "name": "io.github.a/b", "version": "1.0.0"}}
    tier = parse_user_settings(
        {"mcpServers": {"b": entry, "c": {"command": "x", "registry": {"url": "nope"}}}}, file=SETTINGS
    )
    assert [s.registry for s in tier.servers] == [origin(), None]
    assert [p.key for p in tier.problems] == ["mcpServers.c.registry.url"]


@pytest.mark.parametrize(
    "raw",
    [
        "https://r.example",
        {"url": "https://r.example", "name": "no-slash", "version": "1"},
        {"url": "https://r.example", "name": "a.b/c", "version": ""},
    ],
)
def test_a_malformed_origin_is_ignored_and_said(raw: object) -> None:
    said: list[str] = []
    assert parse_registry_entry(raw, lambda key, message: said.append(key)) is None
    assert said
