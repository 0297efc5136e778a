"""`levelcode mcp list` and `levelcode mcp call` as a user runs them: real processes, real servers,
an isolated LEVELCODE_HOME."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from levelcode.mcp.protocol.results import DEFAULT_RESULT_CHARS
from tests.support.cli import LEVELCODE, cli_env, run_cli, write_settings
from tests.support.pty_run import run_in_pty
from tests.support.servers import FAULT_SERVER, node_server, venv_bin


def _settings(home: Path, pid_file: Path) -> None:
    write_settings(
        home,
        {
            "mcpServers": {
                "fault": {
                    "command": sys.executable,
                    "args": [str(FAULT_SERVER)],
                    "env": {"FAULT_PID_FILE": str(pid_file)},
                },
                "everything": {"command": node_server("mcp-server-everything")},
                "missing": {"command": "no-such-command-anywhere"},
                "off": {"command": "whatever", "disabled": True},
            },
            "mcpToolPolicy": {"fault__echo": "allow"},
        },
    )


def test_mcp_list_shows_every_configured_server_with_state_and_tools(
    isolated_home: Path, tmp_path: Path
) -> None:
    _settings(isolated_home, tmp_path / "pids")
    marker = tmp_path / "marker"
    (tmp_path / ".mcp.json").write_text(json.dumps({"repo": {"command": "touch", "args": [str(marker)]}}))
    done = run_cli(["-C", str(tmp_path), "mcp", "list", "-v"], isolated_home)
    assert done.returncode == 1, done.stderr  # 'missing' failed to start
    out = done.stdout
    assert "fault · running · user · " in out
    assert "    fault__echo  [allow · read-only]" in out
    assert "    fault__hang  [ask · unannotated]" in out
    assert "everything · running" in out
    assert "everything__echo" in out
    assert "missing · failed: cannot start 'no-such-command-anywhere': command not found" in out
    assert "off · disabled · user" in out
    assert f"repo · needs approval · workspace · {tmp_path / '.mcp.json'}" in out
    assert f"  touch {marker}" in out
    assert not marker.exists()


def test_mcp_list_prints_one_line_per_server_as_claude_code_does(isolated_home: Path, tmp_path: Path) -> None:
    """NAME: COMMAND - state · tools · scope — what to do next; the tools only with -v or mcp get."""
    _settings(isolated_home, tmp_path / "pids")
    marker = tmp_path / "marker"
    (tmp_path / ".mcp.json").write_text(json.dumps({"repo": {"command": "touch", "args": [str(marker)]}}))
    done = run_cli(["-C", str(tmp_path), "mcp", "list"], isolated_home)
    assert done.returncode == 1, done.stderr  # 'missing' failed to start
    fault, everything, missing, off, repo = done.stdout.splitlines()
    assert fault.startswith(f"fault: {sys.executable} {FAULT_SERVER} - ● running · ")
    assert fault.endswith(" tools · user")
    assert everything.startswith(f"everything: {node_server('mcp-server-everything')} - ● running · ")
    cannot = "cannot start 'no-such-command-anywhere': command not found"
    assert missing.startswith(f"missing: no-such-command-anywhere - ✗ failed: {cannot}")
    assert missing.endswith(f" · user — its stderr: {isolated_home / 'state' / 'logs' / 'missing.log'}")
    assert off == "off: whatever - ○ disabled · user — enable with: levelcode mcp enable off"
    assert (
        repo == f"repo: touch {marker} - ◌ needs approval · project — approve with: levelcode mcp trust repo"
    )
    assert "fault__echo" not in done.stdout
    assert "fault__echo  [allow · read-only]" in run_cli(["mcp", "get", "fault"], isolated_home).stdout


def test_mcp_list_json(isolated_home: Path, tmp_path: Path) -> None:
    _settings(isolated_home, tmp_path / "pids")
    done = run_cli(["-C", str(tmp_path), "mcp", "list", "--json"], isolated_home)
    assert done.returncode == 1, done.stderr  # 'missing' failed to start
    doc = json.loads(done.stdout)
    servers = {s["name"]: s for s in doc["servers"]}
    assert servers["fault"]["state"] == "running"
    assert {"name": "fault__echo", "tool": "echo", "decision": "allow"}.items() <= servers["fault"]["tools"][
        0
    ].items()
    assert servers["missing"]["state"].startswith("failed: ")
    assert doc["problems"] == []


def test_mcp_list_exits_0_only_when_nothing_failed(isolated_home: Path, tmp_path: Path) -> None:
    """0: running, disabled and awaiting approval are no failures; 1: a server that failed to start,
    or an entry config loading left out (documented in `mcp list --help` and the README)."""
    server = {"command": sys.executable, "args": [str(FAULT_SERVER)]}
    (tmp_path / ".mcp.json").write_text(json.dumps({"repo": {"command": "touch", "args": ["x"]}}))
    fine = {"fault": server, "off": {"command": "whatever", "disabled": True}}
    write_settings(isolated_home, {"mcpServers": fine})
    for argv in (["mcp", "list"], ["mcp", "list", "--json"]):
        assert run_cli(["-C", str(tmp_path), *argv], isolated_home).returncode == 0
    write_settings(isolated_home, {"mcpServers": {**fine, "typo": {"comand": "x"}}})
    left_out = run_cli(["-C", str(tmp_path), "mcp", "list", "-v"], isolated_home)
    assert left_out.returncode == 1
    assert "mcpServers.typo: needs `command`" in left_out.stdout
    write_settings(isolated_home, {"mcpServers": {**fine, "gone": {"command": "no-such-command-anywhere"}}})
    assert run_cli(["-C", str(tmp_path), "mcp", "list", "--json"], isolated_home).returncode == 1
    help_text = run_cli(["mcp", "list", "--help"], isolated_home).stdout
    assert "exit status:" in help_text
    assert "3  a remote server needs you to sign in" in help_text


def test_mcp_list_with_nothing_configured_says_how_to_add(isolated_home: Path, tmp_path: Path) -> None:
    done = run_cli(["-C", str(tmp_path), "mcp", "list", "-v"], isolated_home)
    assert done.returncode == 0
    assert "No MCP servers are configured." in done.stdout
    assert "levelcode mcp add" in done.stdout


def test_mcp_call_prints_what_the_model_would_get(isolated_home: Path, tmp_path: Path) -> None:
    _settings(isolated_home, tmp_path / "pids")
    done = run_cli(["mcp", "call", "fault", "echo", '{"message": "hi there"}'], isolated_home)
    assert (done.returncode, done.stdout) == (0, "hi there\n")
    failed = run_cli(["mcp", "call", "fault", "is_error"], isolated_home)
    assert (failed.returncode, failed.stdout) == (1, "ERROR: the tool failed on purpose\n")


def test_mcp_call_piped_writes_the_whole_result_and_a_terminal_sees_what_the_model_gets(
    isolated_home: Path, tmp_path: Path
) -> None:
    """A script reading `mcp call` gets every character; on a terminal the result is cut where the
    model's would be, with the note naming the file that holds the whole of it."""
    _settings(isolated_home, tmp_path / "pids")
    whole = "line of text\n" * 10_000  # fault_server's huge_text: 130,000 characters
    assert len(whole) > DEFAULT_RESULT_CHARS
    piped = run_cli(["mcp", "call", "fault", "huge_text"], isolated_home)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == whole + "\n"
    shown = run_in_pty([str(LEVELCODE), "mcp", "call", "fault", "huge_text"], cli_env(isolated_home))
    assert shown.returncode == 0
    assert f"[result cut: showing {DEFAULT_RESULT_CHARS:,} of {len(whole):,} characters" in shown.text
    assert shown.text.count("line of text") < len(whole) // 12


def test_mcp_call_errors_say_what_to_do(isolated_home: Path, tmp_path: Path) -> None:
    _settings(isolated_home, tmp_path / "pids")
    unknown = run_cli(["mcp", "call", "nope", "echo"], isolated_home)
    assert unknown.returncode == 2
    assert "no MCP server named 'nope' (configured: fault, everything, missing, off)" in unknown.stderr
    bad_json = run_cli(["mcp", "call", "fault", "echo", "{not json"], isolated_home)
    assert bad_json.returncode == 2
    assert "ARGUMENTS must be a JSON object" in bad_json.stderr
    not_running = run_cli(["mcp", "call", "missing", "x"], isolated_home)
    assert not_running.returncode == 1
    assert "ERROR: MCP server 'missing' is not running (failed: cannot start" in not_running.stdout


def test_mcp_call_takes_the_models_name_and_the_servers_own(isolated_home: Path, tmp_path: Path) -> None:
    """As `mcp list` shows a tool (time__get_current_time) and as the server names it both work; a
    name that is neither is refused before any call, with the near ones and the server's list."""
    write_settings(isolated_home, {"mcpServers": {"time": {"command": venv_bin("mcp-server-time")}}})
    utc = '{"timezone": "UTC"}'
    by_model = run_cli(["mcp", "call", "time", "time__get_current_time", utc], isolated_home)
    by_server = run_cli(["mcp", "call", "time", "get_current_time", utc], isolated_home)
    for done in (by_model, by_server):
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["timezone"] == "UTC"
        assert "calling time/get_current_time…" in done.stderr
    typo = run_cli(["mcp", "call", "time", "time__get_curent_time", utc], isolated_home)
    assert typo.returncode == 2
    assert typo.stdout == ""
    assert typo.stderr.splitlines()[-2:] == [
        "levelcode: 'time' has no tool named 'time__get_curent_time'; did you mean get_current_time?",
        "Its tools: convert_time, get_current_time (the model's names, such as time__TOOL, work too).",
    ]


def test_mcp_call_takes_the_name_mcp_list_prints_alone(isolated_home: Path, tmp_path: Path) -> None:
    """`mcp call SERVER__TOOL ARGS` — the one name the model sees and `mcp list` prints — works as
    `mcp call SERVER TOOL ARGS` does; a server that is not configured is still named as typed."""
    server = {"command": sys.executable, "args": [str(FAULT_SERVER), "--odd-names"]}
    write_settings(isolated_home, {"mcpServers": {"fault": server, "my server": server}})
    calls = {
        ("fault__echo", '{"message": "one name"}'): "one name\n",
        ("fault__echo",): "(the tool returned no content)\n",
        ("fault", "fault__echo", '{"message": "two"}'): "two\n",
    }
    for words, printed in calls.items():
        done = run_cli(["-C", str(tmp_path), "mcp", "call", *words], isolated_home)
        assert (done.returncode, done.stdout) == (0, printed), done.stderr
    renamed = run_cli(["-C", str(tmp_path), "mcp", "list", "--json"], isolated_home)
    spaced = next(s for s in json.loads(renamed.stdout)["servers"] if s["name"] == "my server")
    model_name = next(t["name"] for t in spaced["tools"] if t["tool"] == "echo")
    assert model_name.startswith("my_server_")  # a server name the model's names had to change
    done = run_cli(["-C", str(tmp_path), "mcp", "call", model_name, '{"message": "renamed"}'], isolated_home)
    assert (done.returncode, done.stdout) == (0, "renamed\n"), done.stderr
    for words, said in (
        (["nope__echo", "{}"], "no MCP server named 'nope__echo' (configured: fault, my server)"),
        (["fault"], "name the tool: levelcode mcp call fault TOOL [ARGUMENTS]"),
        (["fault__echo", "{}", "{}"], "fault__echo names the tool already"),
    ):
        refused = run_cli(["-C", str(tmp_path), "mcp", "call", *words], isolated_home)
        assert refused.returncode == 2, refused.stdout
        assert said in refused.stderr


def test_a_renamed_tools_own_name_is_shown_and_works(isolated_home: Path, tmp_path: Path) -> None:
    server = {"command": sys.executable, "args": [str(FAULT_SERVER), "--odd-names"]}
    write_settings(isolated_home, {"mcpServers": {"fault": server}})
    listed = run_cli(["-C", str(tmp_path), "mcp", "list", "-v"], isolated_home)
    renamed = [line for line in listed.stdout.splitlines() if "bad_name" in line]
    assert len(renamed) == 1
    assert renamed[0].startswith("    fault__bad_name_with_chars_")
    assert renamed[0].endswith("  [ask · unannotated]  server's name: 'bad name/with:chars'")
    assert "    fault__echo  [ask · read-only]\n" in listed.stdout  # server__tool: nothing to add
    assert "18 tools ·" in listed.stdout
    model_name = renamed[0].split()[0]
    for name in (model_name, "bad name/with:chars"):
        done = run_cli(["mcp", "call", "fault", name, "{}"], isolated_home)
        assert (done.returncode, done.stdout) == (0, "bad name/with:chars called\n"), done.stderr
    got = run_cli(["mcp", "get", "fault"], isolated_home)
    assert "server's name: 'bad name/with:chars'" in got.stdout
