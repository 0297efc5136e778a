"""Which servers the organisation's policy lets through (config/managed_servers.py). Load-bearing
direction: every server of the must-block corpus comes out blocked — a denied launch under another
name, with the program's full path, a URL spelt differently, a repository's server when those are
off, anything an allow-list does not name — and no server of the must-pass corpus is blocked."""

from __future__ import annotations

import sys

import pytest

from levelcode.mcp.config.managed_servers import (
    govern,
    govern_config,
    required_tier,
    server_matches,
    url_matches,
)
from levelcode.mcp.config.sandbox_entry import SandboxRequest
from levelcode.mcp.config.specs import (
    HttpServerSpec,
    Provenance,
    ServerSpec,
    StdioServerSpec,
    entry_fingerprint,
)
from levelcode.mcp.config.tiers import McpConfig, merge_tiers, parse_user_settings
from levelcode.policy.managed_policy import ManagedPolicy, ServerMatch, parse_managed_policy

FILE = "/etc/levelcode/managed-settings.json"
USER = Provenance("user", "/home/me/.config/levelcode/settings.json")
REPO = Provenance("workspace", "/repo/.mcp.json")


def stdio(
    name: str, command: str, *args: str, provenance: Provenance = USER, **more: object
) -> StdioServerSpec:
    return StdioServerSpec(name=name, command=command, args=args, provenance=provenance, **more)  # type: ignore[arg-type]


def http(name: str, url: str, provenance: Provenance = USER) -> HttpServerSpec:
    return HttpServerSpec(name=name, url=url, provenance=provenance)


EVIL = stdio("evil", "npx", "-y", "@evil/server")
POLICY = parse_managed_policy(
    {
        "deniedMcpServers": [
            {"name": "evil"},
            {"command": "npx -y @evil/*"},
            {"url": "https://*.evil.example/*"},
            {"url": "http://tracker.example"},
            {"fingerprint": entry_fingerprint(stdio("x", "node", "/opt/miner.js"))},
        ]
    },
    file=FILE,
)

MUST_BLOCK: list[tuple[str, ServerSpec, ManagedPolicy]] = [
    ("denied name", EVIL, POLICY),
    ("denied name, a repository's", stdio("evil", "true", provenance=REPO), POLICY),
    (
        "denied command under another name",
        stdio("helper", "npx", "-y", "@evil/server", provenance=REPO),
        POLICY,
    ),
    ("denied command, more arguments", stdio("helper", "npx", "-y", "@evil/server", "--port", "3"), POLICY),
    ("denied command, the program's full path", stdio("h", "/usr/local/bin/npx", "-y", "@evil/x"), POLICY),
    ("denied command, a versioned package", stdio("h", "npx", "-y", "@evil/server@1.0.0"), POLICY),
    ("denied url", http("docs", "https://mcp.evil.example/mcp"), POLICY),
    ("denied url, upper case", http("docs", "https://MCP.EVIL.EXAMPLE/mcp"), POLICY),
    ("denied url, trailing dot", http("docs", "https://mcp.evil.example./mcp"), POLICY),
    ("denied url, explicit port", http("docs", "https://mcp.evil.example:443/mcp"), POLICY),
    ("denied url, other port", http("docs", "https://mcp.evil.example:8443/mcp"), POLICY),
    ("denied url, user info", http("docs", "https://good.example@mcp.evil.example/mcp"), POLICY),
    ("denied url, any path", http("t", "http://tracker.example/a/b?c"), POLICY),
    (
        "denied fingerprint under another name",
        stdio("renamed", "node", "/opt/miner.js", provenance=REPO),
        POLICY,
    ),
    (
        "denied fingerprint, written in upper case",  # as `sha256sum` never prints it, but people type
        stdio("renamed", "node", "/opt/miner.js", provenance=REPO),
        parse_managed_policy(
            {
                "deniedMcpServers": [
                    {"fingerprint": entry_fingerprint(stdio("x", "node", "/opt/miner.js")).upper()}
                ]
            },
            file=FILE,
        ),
    ),
    (
        "repository servers off",
        stdio("fine", "true", provenance=REPO),
        ManagedPolicy(file=FILE, repository_servers=False),
    ),
    ("empty allow-list", stdio("mine", "true"), ManagedPolicy(file=FILE, allowed=())),
    (
        "not on the allow-list",
        stdio("other", "true"),
        parse_managed_policy({"allowedMcpServers": [{"name": "github"}]}, file=FILE),
    ),
    (
        "allowed name, another command",
        stdio("github", "/tmp/evil"),
        parse_managed_policy(
            {
                "allowedMcpServers": [
                    {"name": "github", "command": "npx -y @modelcontextprotocol/server-github"}
                ]
            },
            file=FILE,
        ),
    ),
    (
        "an allowed command's name with another program",
        stdio("gh", "./node_modules/.bin/npx", "-y", "@modelcontextprotocol/server-github"),
        parse_managed_policy(
            {"allowedMcpServers": [{"command": "npx -y @modelcontextprotocol/server-github"}]}, file=FILE
        ),
    ),
    (
        "allowed url, lookalike host",
        http("docs", "https://docs.example.com.evil.example/mcp"),
        parse_managed_policy({"allowedMcpServers": [{"url": "https://*.example.com/*"}]}, file=FILE),
    ),
    (
        "allowed url, path outside",
        http("docs", "https://docs.example.com/admin"),
        parse_managed_policy({"allowedMcpServers": [{"url": "https://docs.example.com/mcp*"}]}, file=FILE),
    ),
    (
        "allowed url, plain http",
        http("docs", "http://docs.example.com/mcp"),
        parse_managed_policy({"allowedMcpServers": [{"url": "https://docs.example.com/*"}]}, file=FILE),
    ),
    (
        "allowed fingerprint, env added",
        stdio(
            "memory",
            "npx",
            "-y",
            "@modelcontextprotocol/server-memory",
            env=(("NODE_OPTIONS", "--require x"),),
        ),
        parse_managed_policy(
            {
                "allowedMcpServers": [
                    {
                        "fingerprint": entry_fingerprint(
                            stdio("m", "npx", "-y", "@modelcontextprotocol/server-memory")
                        )
                    }
                ]
            },
            file=FILE,
        ),
    ),
    ("a closed policy", stdio("mine", "true"), parse_managed_policy({"typo": 1}, file=FILE)),
]

MUST_PASS: list[tuple[str, ServerSpec, ManagedPolicy]] = [
    ("no rule names it", stdio("memory", "npx", "-y", "@modelcontextprotocol/server-memory"), POLICY),
    ("a similar name", stdio("evil2", "true"), POLICY),
    ("a similar package", stdio("x", "npx", "-y", "@evilcorp/server"), POLICY),
    ("a url beside the denied domain", http("docs", "https://evil.example/mcp"), POLICY),
    (
        "a user's server when repository servers are off",
        stdio("mine", "true"),
        ManagedPolicy(file=FILE, repository_servers=False),
    ),
    (
        "the policy's own server, even on an empty allow-list",
        stdio("docs", "true", provenance=Provenance("organisation", FILE)),
        ManagedPolicy(file=FILE, allowed=()),
    ),
    (
        "allowed by name and command",
        stdio("github", "npx", "-y", "@modelcontextprotocol/server-github"),
        parse_managed_policy(
            {
                "allowedMcpServers": [
                    {"name": "github", "command": "npx -y @modelcontextprotocol/server-github"}
                ]
            },
            file=FILE,
        ),
    ),
    (
        "allowed url below the domain, upper case",
        http("docs", "https://Docs.Example.com/mcp"),
        parse_managed_policy({"allowedMcpServers": [{"url": "https://*.example.com/*"}]}, file=FILE),
    ),
    (
        "allowed by fingerprint, another name",
        stdio("mem", "npx", "-y", "@modelcontextprotocol/server-memory", provenance=REPO),
        parse_managed_policy(
            {
                "allowedMcpServers": [
                    {
                        "fingerprint": entry_fingerprint(
                            stdio("m", "npx", "-y", "@modelcontextprotocol/server-memory")
                        )
                    }
                ]
            },
            file=FILE,
        ),
    ),
    (
        "allowed by a name pattern",
        stdio("team-docs", "true"),
        parse_managed_policy({"allowedMcpServers": [{"name": "team-*"}]}, file=FILE),
    ),
]


@pytest.mark.parametrize(("why", "spec", "policy"), MUST_BLOCK, ids=[case[0] for case in MUST_BLOCK])
def test_must_block(why: str, spec: ServerSpec, policy: ManagedPolicy) -> None:
    (governed,) = govern([spec], policy)
    assert governed.organisation is not None
    assert governed.organisation.blocked is not None
    assert governed.organisation.blocked.startswith(f"blocked by your organisation's policy ({FILE}): ")


@pytest.mark.parametrize(("why", "spec", "policy"), MUST_PASS, ids=[case[0] for case in MUST_PASS])
def test_must_pass(why: str, spec: ServerSpec, policy: ManagedPolicy) -> None:
    (governed,) = govern([spec], policy)
    assert governed.organisation is None or governed.organisation.blocked is None


def test_the_refusal_names_the_entry_that_matched() -> None:
    (governed,) = govern([stdio("helper", "npx", "-y", "@evil/server", provenance=REPO)], POLICY)
    assert governed.organisation is not None
    assert governed.organisation.blocked == (
        f"blocked by your organisation's policy ({FILE}): "
        'it matches deniedMcpServers[1] (command "npx -y @evil/*")'
    )


def test_an_entry_matches_only_when_every_key_does() -> None:
    both = ServerMatch("x", name="github", command="npx *")
    assert server_matches(both, stdio("github", "npx", "-y", "x"))
    assert not server_matches(both, stdio("github", "uvx", "x"))
    assert not server_matches(both, stdio("gh", "npx", "-y", "x"))
    assert not server_matches(ServerMatch("x", url="https://a.example/*"), stdio("a", "true"))
    assert not server_matches(ServerMatch("x", command="*"), http("a", "https://a.example/"))


@pytest.mark.parametrize(
    ("pattern", "url"),
    [
        ("https://a.example", "https://a.example/anything"),
        ("https://a.example/mcp", "https://a.example/mcp"),
        ("https://a.example:8443/*", "https://a.example:8443/x"),
        ("https://*.a.example/*", "https://b.a.example/"),
    ],
)
def test_url_patterns_that_match(pattern: str, url: str) -> None:
    assert url_matches(pattern, url)


@pytest.mark.parametrize(
    ("pattern", "url"),
    [
        ("https://a.example/mcp", "https://a.example/mcp/extra"),
        ("https://a.example:8443/*", "https://a.example/x"),
        ("https://*.a.example/*", "https://a.example/"),
        ("https://a.example/*", "https://a.example.evil/"),
        ("https://a.example/*", "not a url"),
    ],
)
def test_url_patterns_that_do_not_match(pattern: str, url: str) -> None:
    assert not url_matches(pattern, url)


def test_the_sandbox_and_sampling_ride_on_each_server() -> None:
    policy = ManagedPolicy(file=FILE, sandbox="repository", sampling=False)
    mine, theirs, remote = govern(
        [stdio("mine", "true"), stdio("theirs", "true", provenance=REPO), http("r", "https://r.example/")],
        policy,
    )
    assert mine.organisation is not None
    assert mine.organisation.sandbox is None
    assert theirs.organisation is not None
    assert theirs.organisation.sandbox == f"the sandbox is required by your organisation's policy ({FILE})"
    assert remote.organisation is not None
    assert remote.organisation.sandbox is None  # no process here to confine
    assert (
        remote.organisation.sampling_off == f"sampling is turned off by your organisation's policy ({FILE})"
    )


def test_the_users_sampling_is_turned_off() -> None:
    user = parse_user_settings(
        {"mcpServers": {"s": {"command": "true", "sampling": True}}}, file="settings.json"
    )
    assert user.servers[0].client.sampling
    (governed,) = govern(user.servers, ManagedPolicy(file=FILE, sampling=False))
    assert not governed.client.sampling


def test_a_servers_network_is_narrowed_and_said() -> None:
    wide = stdio("s", "true", sandbox=SandboxRequest(network=True, hosts=("pypi.org", "evil.com")))
    policy = ManagedPolicy(file=FILE, allowed_hosts=("pypi.org",))
    config = govern_config(McpConfig(servers=(wide,)), policy)
    (narrowed,) = config.servers
    assert isinstance(narrowed, StdioServerSpec)
    assert narrowed.sandbox == SandboxRequest(network=False, hosts=("pypi.org",))
    assert [p.key for p in config.problems] == ["mcpServers.s.sandbox.network"]


def test_required_servers_win_every_name() -> None:
    policy = parse_managed_policy(
        {"requiredMcpServers": {"docs": {"url": "https://docs.example.com/mcp"}}}, file=FILE
    )
    user = parse_user_settings({"mcpServers": {"docs": {"command": sys.executable}}}, file="settings.json")
    merged = merge_tiers(user, [], organisation=required_tier(policy))
    (docs,) = merged.servers
    assert docs.provenance == Provenance("organisation", FILE)
    assert [str(p) for p in merged.problems] == [
        "settings.json: mcpServers.docs: server name already defined in "
        f"organisation · {FILE}; this entry is ignored"
    ]
    (governed,) = govern(merged.servers, policy)
    assert governed.organisation is not None
    assert governed.organisation.required
