"""Server overview. Load-bearing direction: each tool's decision in a summary is exactly what the
router's classifier decides, and a server waiting for approval is never shown as running. The
second corpus: the launch reads back as exactly the argv that runs, provenance names the tier and
file, and a disabled server is disabled whatever else is known. (The words: tests/ui/test_mcp_words.py.)"""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.config.specs import HttpServerSpec, StdioServerSpec
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.status import NOT_STARTED, ServerStatus
from tests.support.summaries import REPO, RUNNING, USER, WAITING
from tests.support.summaries import spec as _spec
from tests.support.summaries import summaries as _summaries
from tests.support.summaries import tools as _tools


@pytest.mark.parametrize("status", [RUNNING, ServerStatus("failed", "x"), None])
def test_a_disabled_server_is_disabled_whatever_else_is_known(status: ServerStatus | None) -> None:
    statuses = {"fs": status} if status is not None else {}
    [summary] = _summaries([_spec("fs", disabled=True)], [], statuses=statuses)
    assert summary.status == ServerStatus("disabled")


def test_a_server_nothing_is_known_of_has_not_started() -> None:
    [summary] = _summaries([_spec("fs")], [])
    assert summary.status == NOT_STARTED
    assert not summary.running


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
        statuses={"fs": RUNNING, "repo": WAITING},
        trust={"repo": "never_approved"},
    )
    assert (fs.name, fs.status, fs.tier, fs.file, fs.trust) == ("fs", RUNNING, "user", USER.file, None)
    assert fs.launch == "npx -y server-fs /home/me"
    assert [(t.name, t.tool, t.decision) for t in fs.tools] == [
        ("fs__t0", "t0", "allow"),
        ("fs__t1", "t1", "allow"),
        ("fs__wipe", "wipe", "ask"),
    ]
    assert "destructive" in fs.tools[2].reason
    assert fs.running
    assert (repo.status, repo.tier, repo.file, repo.trust) == (
        WAITING,
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
