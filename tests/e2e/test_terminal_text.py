"""A hostile server's text never reaches the user's terminal as control bytes: through `levelcode
run` (activity lines, error previews, notices, the model echoing the text), `levelcode mcp call`
on a terminal and `levelcode mcp list`. Load-bearing direction: no raw ESC (and no BEL, BS, CR,
bidi override or zero-width character) from the server is written to a terminal, and the OSC 52
clipboard write never lands in the clipboard. The second corpus: the text is still shown, escaped,
and `mcp call` piped into a script stays byte-exact."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.fakes.fake_openai import tool_messages
from tests.fakes.scripted_server import Reply, ToolCall
from tests.providers.support import OPENAI
from tests.servers.fault_server import CLIPBOARD_PAYLOAD, TERMINAL_ATTACK
from tests.support.cli import LEVELCODE, cli_env, provider_env, provider_flags, run_cli, write_settings
from tests.support.pty_run import run_in_pty
from tests.support.servers import FAULT_SERVER
from tests.support.terminal import Terminal

# What the server sent that a terminal would act on. Rich's own styling writes other sequences
# (colour, erase-line for the live view), so on a terminal these distinctive ones are checked.
RAW_PIECES = (
    "\x1b]52",
    "\x1b[2J",
    "\x1b[38;5;196m",
    "\x07",
    "\x08",
    "fake\rreal",
    "\u202e",
    "\u200b",
    "\ufeff",
    "\u00ad",
    "\x9b",
)
SHOWN = "\\x1b]52;c;"  # the clipboard write, shown as text


def fault_entry(pid_file: Path, *flags: str) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": [str(FAULT_SERVER), "--hostile", *flags],
        "env": {"FAULT_PID_FILE": str(pid_file)},
    }


def hostile_settings(home: Path, workspace: Path) -> None:
    servers = {
        "fault": fault_entry(workspace / "pids"),
        "broken": fault_entry(workspace / "pids", "--exit-at-start"),
    }
    write_settings(home, {"mcpServers": servers, "mcpToolPolicy": {"fault__*": "allow"}})


def attack_steps() -> list[Any]:
    calls = (ToolCall("fault__terminal_attack"), ToolCall("fault__terminal_attack_error"))
    return [Reply(tool_calls=calls), Reply(text=f"The server said: {TERMINAL_ATTACK}\n\nDone.")]


def assert_no_raw_pieces(text: str) -> None:
    for piece in RAW_PIECES:
        assert piece not in text, f"{piece!r} reached the terminal"


def test_run_piped_prints_no_control_bytes_from_a_server(isolated_home: Path, tmp_path: Path) -> None:
    hostile_settings(isolated_home, tmp_path)
    with OPENAI.fake(attack_steps()) as server:
        argv = [
            str(LEVELCODE),
            "run",
            "-C",
            str(tmp_path),
            *provider_flags("openai", server.base_url, OPENAI.model),
        ]
        done = subprocess.run(
            [*argv, "go"],
            capture_output=True,
            text=True,
            env=provider_env(isolated_home, "openai"),
            timeout=120,
            check=False,
        )
        results = [m["content"] for m in tool_messages(server.requests[1])]
    assert done.returncode == 0, done.stderr
    assert results[0] == TERMINAL_ATTACK  # the model gets the exact text; only the display is escaped
    output = done.stdout + done.stderr
    assert "\x1b" not in output
    assert_no_raw_pieces(output)
    assert SHOWN in done.stderr  # the activity line and the error preview show it, escaped
    assert "MCP server 'broken' failed" in done.stderr
    assert SHOWN in done.stdout  # the model's echo, escaped
    assert "\\u202egnp.exe" in done.stdout


def test_run_in_a_terminal_prints_no_control_bytes_from_a_server(isolated_home: Path, tmp_path: Path) -> None:
    hostile_settings(isolated_home, tmp_path)
    with OPENAI.fake(attack_steps()) as server:
        argv = [
            str(LEVELCODE),
            "run",
            "-C",
            str(tmp_path),
            *provider_flags("openai", server.base_url, OPENAI.model),
        ]
        env = provider_env(isolated_home, "openai", TERM="xterm-256color")
        done = run_in_pty([*argv, "go"], env, cwd=tmp_path, within=120)
    assert done.returncode == 0, done.text
    assert_no_raw_pieces(done.text)
    assert SHOWN in done.text


def test_mcp_call_on_a_terminal_escapes_and_piped_stays_exact(isolated_home: Path, tmp_path: Path) -> None:
    hostile_settings(isolated_home, tmp_path)
    for tool in ("terminal_attack", "terminal_attack_error"):
        shown = run_in_pty(
            [str(LEVELCODE), "-C", str(tmp_path), "mcp", "call", "fault", tool],
            cli_env(isolated_home, TERM="xterm-256color"),
            cwd=tmp_path,
        )
        assert b"\x1b" not in shown.output
        assert_no_raw_pieces(shown.text)
        assert SHOWN in shown.text
    piped = subprocess.run(
        [str(LEVELCODE), "-C", str(tmp_path), "mcp", "call", "fault", "terminal_attack"],
        capture_output=True,
        env=cli_env(isolated_home),
        timeout=60,
        check=False,
    )
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == (TERMINAL_ATTACK + "\n").encode()  # byte-exact for scripts


def test_mcp_call_never_writes_the_clipboard(terminal: Terminal, isolated_home: Path, tmp_path: Path) -> None:
    hostile_settings(isolated_home, tmp_path)
    terminal.start(
        [str(LEVELCODE), "mcp", "call", "fault", "terminal_attack"],
        cli_env(isolated_home, TERM="xterm-256color"),
        cwd=str(tmp_path),
        options=[("set-clipboard", "on")],
    )
    screen = terminal.wait_for("[exited 0]")
    assert CLIPBOARD_PAYLOAD not in terminal.buffers()
    assert SHOWN in screen


def test_mcp_list_shows_a_failed_servers_stderr_escaped(isolated_home: Path, tmp_path: Path) -> None:
    hostile_settings(isolated_home, tmp_path)
    piped = run_cli(["-C", str(tmp_path), "mcp", "list", "-v"], isolated_home)
    assert piped.returncode == 1, piped.stderr  # a server failed
    assert "broken · failed: exited while starting" in piped.stdout
    assert "\x1b" not in piped.stdout + piped.stderr
    assert SHOWN in piped.stdout
    shown = run_in_pty(
        [str(LEVELCODE), "-C", str(tmp_path), "mcp", "list", "-v"],
        cli_env(isolated_home, TERM="xterm-256color"),
    )
    assert shown.returncode == 1, shown.text
    assert_no_raw_pieces(shown.text)
    assert SHOWN in shown.text
    doc = json.loads(run_cli(["-C", str(tmp_path), "mcp", "list", "--json"], isolated_home).stdout)
    broken = next(s for s in doc["servers"] if s["name"] == "broken")
    assert "\x1b]52" in broken["state"]  # JSON carries the exact text, escaped by JSON itself
