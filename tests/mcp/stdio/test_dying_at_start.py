"""A server that dies at start is reported one way, whichever sign of its end LevelCode notices
first (its stdin closed, its stdout at end of file, its exit): how it ended and the stderr lines
that say why — for Node the error and where it was thrown, for Python the traceback's last error
and its origin, otherwise its first lines — never the tail of a stack. Each case runs several
times over every protocol-era hint, because the sign noticed first changes from run to run.
Load-bearing direction: the exact message, every time."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from levelcode.core.errors import ServerStartError
from levelcode.mcp.config.specs import StdioServerSpec
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.connection import connect
from levelcode.mcp.live.hub import McpHub
from tests.support.cli import run_cli, write_settings
from tests.support.servers import ROOT, USER

THROWS = ROOT / "tests" / "servers" / "throws_at_start.js"
RAISES = ROOT / "tests" / "servers" / "raises_at_start.py"
RUNS = range(4)
HINTS = ["legacy", None, "modern"]


def _spec(command: str, *args: str) -> StdioServerSpec:
    return StdioServerSpec(name="dies", command=command, args=args, provenance=USER)


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH")
    return node


CASES = {
    "node-throws": (
        lambda: _spec(_node(), str(THROWS)),
        "exited while starting (exit code 1); stderr: Error: cannot read the config: ENOENT: no such "
        f"file, open 'server.json' | at readConfig ({THROWS}:4:9)",
    ),
    "python-raises": (
        lambda: _spec(sys.executable, str(RAISES)),
        "exited while starting (exit code 1); stderr: RuntimeError: no database at /var/lib/app.db | "
        f'File "{RAISES}", line 8, in connect_database',
    ),
    "silent-exit-3": (
        lambda: _spec(sys.executable, "-c", "raise SystemExit(3)"),
        "exited while starting (exit code 3)",
    ),
}


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("hint", HINTS)
@pytest.mark.parametrize("case", list(CASES))
async def test_a_server_dying_at_start_is_reported_the_same_way_every_time(
    case: str, hint: str | None, run: int
) -> None:
    make, expected = CASES[case]
    options = ConnectOptions(workspace=ROOT, startup_timeout=20)
    with pytest.raises(ServerStartError) as caught:
        await connect(make(), options, hint=hint)  # type: ignore[arg-type]
    assert str(caught.value) == expected


async def test_the_hub_says_the_same_in_the_server_status() -> None:
    hub = McpHub(ConnectOptions(workspace=ROOT, startup_timeout=20))
    make, expected = CASES["python-raises"]
    await hub.start([make()])
    state = hub.servers["dies"]
    assert (state.status.phase, state.status.detail) == ("failed", expected)
    await hub.reap_all()


def test_the_message_names_no_stack_tail() -> None:
    # the lines Node prints last (internal frames, its version) are never what is quoted
    for _make, expected in CASES.values():
        assert not re.search(r"node:internal|Node\.js v", expected)


def test_mcp_list_reports_each_dying_server_the_same_way_run_after_run(
    isolated_home: Path, tmp_path: Path
) -> None:
    """As a user meets it: `levelcode mcp list`, where the user's own servers are spawned before
    the rest of LevelCode is loaded, and may be dead before anything is sent to them."""
    servers = {
        name: {"command": make().command, "args": list(make().args)} for name, (make, _) in CASES.items()
    }
    write_settings(isolated_home, {"mcpServers": servers})
    for _run in range(5):
        listed = run_cli(["-C", str(tmp_path), "mcp", "list", "--json"], isolated_home)
        states = {s["name"]: s["state"] for s in json.loads(listed.stdout)["servers"]}
        assert states == {name: f"failed: {expected}" for name, (_, expected) in CASES.items()}
