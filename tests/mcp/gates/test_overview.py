"""Server overview and the run-start chip. Load-bearing direction: the chip's allow-listed count is
exactly what the router's classifier allows — never a tool the router would stop to ask about (a
destructive one, one the user set to `ask`, one nobody listed) — and a server waiting for approval
is never shown as running. The second corpus: each state reads as its own text, the launch reads
back as exactly the argv that runs, and provenance names the tier and file."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.config.specs import HttpServerSpec, McpConfig, Provenance, ServerSpec, StdioServerSpec
from levelcode.mcp.gates.catalog import Catalog, build_catalog
from levelcode.mcp.gates.naming import split_tool_name
from levelcode.mcp.gates.overview import (
    COMMAND_CHANGED,
    NEEDS_APPROVAL,
    ServerStatus,
    ServerSummary,
    chip,
    launch_text,
    state_text,
    summarize,
)
from levelcode.mcp.gates.policy import classify_mcp_tool
from levelcode.mcp.gates.trust import TrustState

USER = Provenance("user", "/home/me/.config/levelcode/settings.json")
REPO = Provenance("workspace", "/repo/.mcp.json")
RUNNING = ServerStatus("running")
ALLOWED = re.compile(r"(\d+)/(\d+) allow-listed")


def _spec(name: str, *args: str, provenance: Provenance = USER, disabled: bool = False) -> StdioServerSpec:
    return StdioServerSpec(name=name, command="npx", args=args, provenance=provenance, disabled=disabled)


def _tools(count: int, prefix: str = "t", annotations: Mapping[str, object] | None = None) -> list[object]:
    extra = {"annotations": dict(annotations)} if annotations is not None else {}
    return [{"name": f"{prefix}{i}", "inputSchema": {"type": "object"}, **extra} for i in range(count)]


def _summaries(
    servers: Sequence[ServerSpec],
    listings: Sequence[tuple[str, Sequence[object]]],
    *,
    policy: Mapping[str, str] | None = None,
    statuses: Mapping[str, ServerStatus] | None = None,
    trust: Mapping[str, TrustState] | None = None,
    max_tools: int = 100,
) -> tuple[ServerSummary, ...]:
    config = McpConfig(servers=tuple(servers), tool_policy=dict(policy or {}))
    catalog = build_catalog(listings, max_tools_per_server=max_tools)
    return summarize(config, statuses or {}, trust or {}, catalog)


STATES = [
    # (disabled, status, trust, expected)
    (True, RUNNING, None, "disabled"),
    (True, None, "changed", "disabled"),
    (False, RUNNING, None, "running"),
    (False, RUNNING, "approved", "running"),
    (
        False,
        ServerStatus("failed", "exited with code 1 before the handshake"),
        None,
        "failed: exited with code 1 before the handshake",
    ),
    (False, ServerStatus("failed", "timed out"), "approved", "failed: timed out"),
    (False, None, "changed", "command changed — needs approval"),
    (False, ServerStatus("not_started", COMMAND_CHANGED), "changed", "command changed — needs approval"),
    (False, None, "never_approved", "needs approval"),
    (
        False,
        ServerStatus("not_started", "not approved — you said no this session"),
        "never_approved",
        "not approved — you said no this session",
    ),
    (False, ServerStatus("not_started", "waiting"), "approved", "waiting"),
    (False, None, "approved", "not started"),
    (False, None, None, "not started"),
]


@pytest.mark.parametrize(("disabled", "status", "trust", "expected"), STATES)
def test_each_state_reads_as_its_own_text(
    disabled: bool, status: ServerStatus | None, trust: TrustState | None, expected: str
) -> None:
    assert state_text(_spec("fs", disabled=disabled), status, trust) == expected


def test_the_state_constants_read_as_the_views_print_them() -> None:
    assert NEEDS_APPROVAL == "needs approval"
    assert COMMAND_CHANGED == "command changed — needs approval"


LAUNCHES = [
    (
        ("npx", "-y", "@modelcontextprotocol/server-filesystem", "/repo"),
        "npx -y @modelcontextprotocol/server-filesystem /repo",
    ),
    (("node", "my server.js"), "node 'my server.js'"),
    (("sh", "-c", "echo $(id); rm -rf ~"), "sh -c 'echo $(id); rm -rf ~'"),
    (("python", "it's"), "python 'it'\"'\"'s'"),
    (("/opt/my tools/run", "`whoami`"), "'/opt/my tools/run' '`whoami`'"),
    (("run", ""), "run ''"),
]


@pytest.mark.parametrize(("argv", "expected"), LAUNCHES)
def test_the_launch_is_the_shell_quoted_command_line(argv: tuple[str, ...], expected: str) -> None:
    spec = StdioServerSpec(name="s", command=argv[0], args=argv[1:], provenance=REPO)
    assert launch_text(spec) == expected
    assert shlex.split(launch_text(spec)) == list(argv)


@given(command=st.text(), args=st.lists(st.text()))
def test_the_launch_always_reads_back_as_exactly_the_argv(command: str, args: list[str]) -> None:
    spec = StdioServerSpec(name="s", command=command, args=tuple(args), provenance=REPO)
    assert shlex.split(launch_text(spec)) == [command, *args]


def test_an_http_launch_is_its_url() -> None:
    spec = HttpServerSpec(name="web", url="https://mcp.example/v1?x=1", provenance=USER)
    assert launch_text(spec) == "https://mcp.example/v1?x=1"


def test_summary_carries_provenance_launch_trust_and_tools() -> None:
    servers = [
        _spec("fs", "-y", "server-fs", "/home/me"),
        _spec("repo", "./tools/serve.sh", "--port", "8 0", provenance=REPO),
    ]
    listings = [("fs", [*_tools(2), {"name": "wipe", "annotations": {"destructiveHint": True}}])]
    fs, repo = _summaries(
        servers,
        listings,
        policy={"fs__*": "allow"},
        statuses={"fs": RUNNING},
        trust={"repo": "never_approved"},
    )
    assert (fs.name, fs.state, fs.tier, fs.file, fs.trust) == ("fs", "running", "user", USER.file, None)
    assert fs.launch == "npx -y server-fs /home/me"
    assert [(t.name, t.tool, t.decision) for t in fs.tools] == [
        ("fs__t0", "t0", "allow"),
        ("fs__t1", "t1", "allow"),
        ("fs__wipe", "wipe", "ask"),
    ]
    assert "destructive" in fs.tools[2].reason
    assert fs.running
    assert (repo.state, repo.tier, repo.file, repo.trust) == (
        "needs approval",
        "workspace",
        REPO.file,
        "never_approved",
    )
    assert repo.launch == "npx ./tools/serve.sh --port '8 0'"
    assert repo.tools == ()
    assert not repo.running


def test_summary_counts_tools_over_the_cap_and_malformed_specs() -> None:
    listing = [*_tools(5), {"description": "no name"}, "not a tool"]
    [summary] = _summaries([_spec("big")], [("big", listing)], statuses={"big": RUNNING}, max_tools=3)
    assert len(summary.tools) == 3
    assert (summary.dropped, summary.malformed) == (2, 2)


def test_the_chip_reads_exactly_like_this() -> None:
    servers = [_spec("filesystem"), _spec("github"), _spec("repo-tools", provenance=REPO)]
    listings = [("filesystem", _tools(11)), ("github", _tools(41))]
    policy = {"filesystem__t0": "allow", "filesystem__t1": "allow", "github__t7": "allow"}
    summaries = _summaries(
        servers,
        listings,
        policy=policy,
        statuses={"filesystem": RUNNING, "github": RUNNING},
        trust={"repo-tools": "never_approved"},
    )
    assert chip(summaries) == (
        "mcp · filesystem (11) · github (41) · 3/52 allow-listed · 1 server needs approval"
    )


def test_the_chip_counts_failures_approvals_and_tools_left_out() -> None:
    servers = [
        _spec("gh"),
        _spec("empty"),
        _spec("broken"),
        _spec("off", disabled=True),
        _spec("new", provenance=REPO),
        _spec("moved", provenance=REPO),
        _spec("dead", provenance=REPO),
    ]
    summaries = _summaries(
        servers,
        [("gh", _tools(5)), ("empty", [])],
        statuses={
            "gh": RUNNING,
            "empty": RUNNING,
            "broken": ServerStatus("failed", "exited"),
            "dead": ServerStatus("failed", "no such command"),
        },
        trust={"new": "never_approved", "moved": "changed", "dead": "approved"},
        max_tools=3,
    )
    assert chip(summaries) == (
        "mcp · gh (3) · empty (0) · 0/3 allow-listed · 1 server needs approval"
        " · 1 server changed since you approved it · 2 servers failed · gh: 2 tools over the cap left out"
    )


def test_the_chip_with_nothing_running_leaves_out_the_tool_count() -> None:
    summaries = _summaries([_spec("repo", provenance=REPO)], [], trust={"repo": "changed"})
    assert chip(summaries) == "mcp · 1 server changed since you approved it"


def test_no_servers_means_no_chip() -> None:
    assert chip(()) is None


def test_the_chip_never_counts_a_destructive_tool_as_allow_listed() -> None:
    listing = [*_tools(2), *_tools(3, prefix="rm", annotations={"destructiveHint": True})]
    summaries = _summaries([_spec("fs")], [("fs", listing)], policy={"*": "allow"}, statuses={"fs": RUNNING})
    assert chip(summaries) == "mcp · fs (5) · 2/5 allow-listed"


SERVER_NAMES = ["fs", "github", "my server", "a__b", "db"]
TOOL_NAMES = ["read", "write", "delete", "list files", "x" * 70]
ANNOTATIONS = st.sampled_from(
    [
        None,
        {"destructiveHint": True},
        {"destructiveHint": False},
        {"readOnlyHint": True},
        {"destructiveHint": "true"},
        {"readOnlyHint": True, "destructiveHint": True},
    ]
)


@st.composite
def _listings(draw: st.DrawFn) -> list[tuple[str, list[object]]]:
    servers = draw(st.lists(st.sampled_from(SERVER_NAMES), min_size=1, max_size=4, unique=True))
    listings: list[tuple[str, list[object]]] = []
    for server in servers:
        names = draw(st.lists(st.sampled_from(TOOL_NAMES), max_size=5, unique=True))
        specs: list[object] = []
        for name in names:
            annotations = draw(ANNOTATIONS)
            specs.append({"name": name} | ({"annotations": annotations} if annotations is not None else {}))
        listings.append((server, specs))
    return listings


def _policy_keys(catalog: Catalog) -> list[str]:
    keys = ["*", "nobody__*", "fs__nothing"]
    for tool in catalog.tools:
        keys.append(tool.name)
        parts = split_tool_name(tool.name)
        if parts is not None:
            keys.append(parts[0] + "__*")
    return keys


def _router_allows(catalog: Catalog, policy: Mapping[str, str]) -> int:
    return sum(
        1
        for tool in catalog.tools
        if classify_mcp_tool(tool.name, catalog.routes[tool.name].annotations, policy).decision == "allow"
    )


@given(listings=_listings(), data=st.data())
def test_the_chip_allow_listed_count_is_exactly_what_the_router_allows(
    listings: list[tuple[str, list[object]]], data: st.DataObject
) -> None:
    catalog = build_catalog(listings)
    policy = data.draw(
        st.dictionaries(st.sampled_from(_policy_keys(catalog)), st.sampled_from(["allow", "ask"]))
    )
    config = McpConfig(servers=tuple(_spec(server) for server, _ in listings), tool_policy=policy)
    summaries = summarize(config, {server: RUNNING for server, _ in listings}, {}, catalog)
    text = chip(summaries)
    assert text is not None
    match = ALLOWED.search(text)
    assert match is not None
    assert (int(match[1]), int(match[2])) == (_router_allows(catalog, policy), len(catalog.tools))
    for summary in summaries:
        for line in summary.tools:
            route = catalog.routes[line.name]
            assert line.decision == classify_mcp_tool(line.name, route.annotations, policy).decision


@given(listings=_listings(), data=st.data())
def test_servers_not_running_never_add_to_the_allow_listed_count(
    listings: list[tuple[str, list[object]]], data: st.DataObject
) -> None:
    catalog = build_catalog(listings)
    policy = data.draw(st.dictionaries(st.sampled_from(_policy_keys(catalog)), st.just("allow")))
    running = data.draw(st.sets(st.sampled_from([server for server, _ in listings])))
    config = McpConfig(servers=tuple(_spec(server) for server, _ in listings), tool_policy=policy)
    statuses = {s: RUNNING if s in running else ServerStatus("failed", "gone") for s, _ in listings}
    text = chip(summarize(config, statuses, {}, catalog))
    assert text is not None
    match = ALLOWED.search(text)
    if not running:
        assert match is None
        return
    assert match is not None
    running_tools = [t for t in catalog.tools if catalog.routes[t.name].server in running]
    running_catalog = Catalog(tuple(running_tools), catalog.routes, catalog.counts)
    assert int(match[1]) == _router_allows(running_catalog, policy)
    assert int(match[1]) <= _router_allows(catalog, policy)
