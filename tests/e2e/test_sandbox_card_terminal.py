"""The launch card's sandbox answers in a real terminal (tmux). Load-bearing direction: the first
answer a repository's server is offered is "approve, sandboxed"; taking it runs the server
confined — a write to the workspace and a connection to a 127.0.0.1 listener fail — and the
choice is remembered, so a later headless run starts it confined again. The second corpus:
`levelcode mcp trust` offers the same answers, and "sandboxed, and the workspace" lets it write
there; `/mcp` says how each server runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from levelcode.mcp.config.tiers import parse_workspace_file
from levelcode.mcp.launch.trust_store import TrustStore
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, cli_env, provider_env, provider_flags, run_cli
from tests.support.listener import Listener
from tests.support.servers import FAULT_SERVER
from tests.support.terminal import Terminal

pytestmark = pytest.mark.sandbox

ANSWERS = (
    "[s] approve, sandboxed",
    "[w] approve, sandboxed, and let it write",
    "[y] approve, unconfined",
    "[n] deny",
)


def probe_server(workspace: Path) -> None:
    entry = {"command": sys.executable, "args": [str(FAULT_SERVER), "--probes"]}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"probe": entry}}))


def store(home: Path) -> TrustStore:
    return TrustStore(home / "state" / "trust.json")


def spec_of(workspace: Path) -> object:
    config = workspace / ".mcp.json"
    return parse_workspace_file(json.loads(config.read_text()), file=str(config)).servers[0]


def assert_answers_in_order(screen: str) -> None:
    where = [screen.rfind(answer) for answer in ANSWERS]
    assert all(at >= 0 for at in where), screen
    assert where == sorted(where), screen  # "approve, sandboxed" first, "deny" last


def test_the_first_answer_runs_the_server_sandboxed_and_is_remembered(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    probe_server(tmp_path)
    with OPENAI.fake([]) as server:
        env = provider_env(isolated_home, "openai", TERM="xterm-256color")
        terminal.start(
            [str(LEVELCODE), *provider_flags("openai", server.base_url, OPENAI.model)], env, str(tmp_path)
        )
        screen = terminal.wait_for_keys()
        assert_answers_in_order(screen)
        assert "sandbox: sandboxed, it can read what you can except your secret stores" in screen
        terminal.answer("s", confirm=True)
        terminal.wait_for("mcp · probe (")
        terminal.wait_for_prompt()
        terminal.type("/mcp")
        terminal.send("Enter")
        terminal.wait_for("sandbox: sandboxed (as you approved it): writes its own folder · network off")
        terminal.wait_for_prompt()
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
    assert store(isolated_home).sandbox_choice(tmp_path, spec_of(tmp_path)) == "own"  # type: ignore[arg-type]
    marker = tmp_path / "marker"
    done = run_cli(
        ["-C", str(tmp_path), "mcp", "call", "probe", "try_write", json.dumps({"path": str(marker)})],
        isolated_home,
    )
    assert done.stdout.startswith("refused: [Errno 30] Read-only file system"), done.stdout + done.stderr
    assert not marker.exists()
    with Listener() as listener:
        arguments = json.dumps({"port": listener.port})
        done = run_cli(["-C", str(tmp_path), "mcp", "call", "probe", "try_connect", arguments], isolated_home)
        assert done.stdout.startswith("refused: "), done.stdout
        assert listener.received() == b""


def test_mcp_trust_offers_the_same_answers_and_the_workspace_one_lets_it_write_there(
    terminal: Terminal, isolated_home: Path, tmp_path: Path
) -> None:
    probe_server(tmp_path)
    terminal.start(
        [str(LEVELCODE), "mcp", "trust", "probe"],
        cli_env(isolated_home, TERM="xterm-256color"),
        str(tmp_path),
    )
    assert_answers_in_order(terminal.wait_for_keys())
    terminal.answer("w", confirm=True)
    terminal.wait_for("Approved: LevelCode will start 'probe' in")
    terminal.wait_for("[exited 0]")
    assert "in the sandbox." in terminal.screen().replace("\n", "")
    assert store(isolated_home).sandbox_choice(tmp_path, spec_of(tmp_path)) == "workspace"  # type: ignore[arg-type]
    kept = tmp_path / "kept.txt"
    done = run_cli(
        ["-C", str(tmp_path), "mcp", "call", "probe", "try_write", json.dumps({"path": str(kept)})],
        isolated_home,
    )
    assert done.stdout == f"wrote {kept}\n", done.stderr
    listed = run_cli(["-C", str(tmp_path), "mcp", "list", "-v"], isolated_home)
    assert "sandbox: sandboxed (as you approved it): writes its own folder, the workspace" in listed.stdout
