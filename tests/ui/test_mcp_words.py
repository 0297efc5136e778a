"""The words for MCP servers' states, notices and the run-start chip. Load-bearing direction: the
chip's allow-listed count is exactly what the router's classifier allows — never a tool the router
would stop to ask about (a destructive one, one the user set to `ask`, one nobody listed) — and a
server waiting for approval is never counted or shown as running. The second corpus: each typed
state reads as its own text."""

from __future__ import annotations

import re
from collections.abc import Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.calls.catalog import Catalog, build_catalog
from levelcode.mcp.calls.naming import split_tool_name
from levelcode.mcp.calls.policy import classify_mcp_tool
from levelcode.mcp.config.tiers import McpConfig
from levelcode.mcp.launch.status import LaunchHeld, McpNote, ServerFailed, ServerStatus
from levelcode.mcp.launch.trust import OLD_APPROVAL, TrustState
from levelcode.mcp.live.overview import summarize
from levelcode.ui.mcp_words import chip, notice_words, state_words
from tests.support.summaries import REPO, RUNNING, WAITING
from tests.support.summaries import spec as _spec
from tests.support.summaries import summaries as _summaries
from tests.support.summaries import tools as _tools

ALLOWED = re.compile(r"(\d+)/(\d+) allow-listed")

STATES = [
    # (status, trust, change, expected)
    (RUNNING, None, None, "running"),
    (RUNNING, "approved", None, "running"),
    (ServerStatus("disabled"), None, None, "disabled"),
    (ServerStatus("stopped"), None, None, "stopped"),
    (ServerStatus("not_started"), None, None, "not started"),
    (ServerStatus("starting"), None, None, "starting"),
    (
        ServerStatus("failed", "exited with code 1 before the handshake"),
        None,
        None,
        "failed: exited with code 1 before the handshake",
    ),
    (ServerStatus("failed", "timed out"), "approved", None, "failed: timed out"),
    (WAITING, "never_approved", None, "needs approval"),
    (WAITING, "changed", None, "command changed — needs approval"),
    (WAITING, "changed", "command changed", "command changed — needs approval"),
    (WAITING, "changed", "server.py changed", "server.py changed since you approved — needs approval"),
    (WAITING, "changed", OLD_APPROVAL, f"{OLD_APPROVAL} — needs approval"),
    (ServerStatus("denied"), "never_approved", None, "not approved — you said no this session"),
    (ServerStatus("denied"), "changed", "server.py changed", "server.py changed — you said no this session"),
]


@pytest.mark.parametrize(("status", "trust", "change", "expected"), STATES)
def test_each_state_reads_as_its_own_text(
    status: ServerStatus, trust: TrustState | None, change: str | None, expected: str
) -> None:
    assert state_words(status, trust, change) == expected


def test_each_notice_reads_as_its_own_text() -> None:
    held = LaunchHeld("helper", "/repo/.mcp.json", "changed", "server.py changed")
    assert notice_words(held) == (
        "MCP server 'helper' (/repo/.mcp.json) was not started: it needs your approval "
        "(server.py changed since you approved it). "
        "Review and approve it in a terminal with: levelcode mcp trust helper"
    )
    assert (
        notice_words(ServerFailed("fs", "exited (exit code 1)"))
        == "MCP server 'fs' failed: exited (exit code 1)"
    )
    assert notice_words(McpNote("the store is odd", warning=True)) == "warning: the store is odd"
    assert notice_words(McpNote("fault: tool x left out")) == "fault: tool x left out"


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
    waiting = _summaries([_spec("repo-tools", provenance=REPO)], [], statuses={"repo-tools": WAITING})
    assert chip((*summaries[:2], *waiting)) == (
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
            "new": WAITING,
            "moved": WAITING,
        },
        trust={"new": "never_approved", "moved": "changed", "dead": "approved"},
        max_tools=3,
    )
    assert chip(summaries) == (
        "mcp · gh (3) · empty (0) · 0/3 allow-listed · 1 server needs approval"
        " · 1 server changed since you approved it · 2 servers failed · gh: 2 tools over the cap left out"
    )


def test_the_chip_with_nothing_running_leaves_out_the_tool_count() -> None:
    summaries = _summaries(
        [_spec("repo", provenance=REPO)], [], statuses={"repo": WAITING}, trust={"repo": "changed"}
    )
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
