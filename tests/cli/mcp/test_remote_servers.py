"""`levelcode mcp list` and `levelcode mcp call` against real remote servers on 127.0.0.1, as a user
runs them; a header's `${VAR}` reaches the server expanded and its value appears nowhere LevelCode
writes: not stdout, not stderr, not `--json`, not a file under LEVELCODE_HOME."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.cli import LEVELCODE, cli_env, write_settings
from tests.support.http_servers import everything, fastmcp_server, running, sdk_server

SECRET = "k-THE-SECRET-HEADER-VALUE"


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LEVELCODE), *args],
        capture_output=True,
        text=True,
        env=cli_env(home, SERVER_KEY=SECRET),
        timeout=60,
        check=False,
    )


def _nothing_written_holds(home: Path, secret: str) -> list[str]:
    return [str(p) for p in home.rglob("*") if p.is_file() and secret in p.read_text(errors="replace")]


def test_list_and_call_a_streamable_http_server(isolated_home: Path, tmp_path: Path) -> None:
    with running(sdk_server(env={"EXPECTED_API_KEY": SECRET})) as server:
        entry = {"url": server.url, "headers": {"X-Api-Key": "${SERVER_KEY}"}}
        write_settings(isolated_home, {"mcpServers": {"remote": entry}})
        listed = _cli(isolated_home, "-C", str(tmp_path), "mcp", "list", "-v")
        as_json = _cli(isolated_home, "-C", str(tmp_path), "mcp", "list", "--json")
        whoami = _cli(isolated_home, "mcp", "call", "remote", "whoami")
        echo = _cli(isolated_home, "mcp", "call", "remote", "echo", '{"message": "over http"}')
    assert listed.returncode == 0, listed.stderr
    assert f"remote · running · user · {isolated_home / 'settings.json'}" in listed.stdout
    assert f"  {server.url}" in listed.stdout
    assert "    remote__echo  [ask · unannotated]" in listed.stdout
    servers = {s["name"]: s for s in json.loads(as_json.stdout)["servers"]}
    assert servers["remote"]["state"] == "running"
    assert (whoami.returncode, whoami.stdout) == (0, "key ok\n")
    assert (echo.returncode, echo.stdout) == (0, "Echo: over http\n")
    for done in (listed, as_json, whoami, echo):
        assert SECRET not in done.stdout + done.stderr
    assert _nothing_written_holds(isolated_home, SECRET) == []


def test_call_a_legacy_sse_server(isolated_home: Path) -> None:
    with running(everything("sse")) as server:
        write_settings(isolated_home, {"mcpServers": {"old": {"type": "sse", "url": server.url}}})
        done = _cli(isolated_home, "mcp", "call", "old", "get-sum", '{"a": 2, "b": 3}')
    assert (done.returncode, done.stdout) == (0, "The sum of 2 and 3 is 5.\n"), done.stderr


def test_list_and_call_a_fastmcp_server(isolated_home: Path) -> None:
    with running(fastmcp_server()) as server:
        write_settings(isolated_home, {"mcpServers": {"fast": {"url": server.url}}})
        listed = _cli(isolated_home, "mcp", "list", "-v")
        done = _cli(isolated_home, "mcp", "call", "fast", "add", '{"a": 2, "b": 3}')
    assert "fast · running" in listed.stdout, listed.stderr
    assert "    fast__add  [ask · unannotated]" in listed.stdout
    assert (done.returncode, done.stdout) == (0, "2 + 3 = 5\n"), done.stderr


def test_an_unreachable_server_is_a_listed_failure_not_a_traceback(
    isolated_home: Path, tmp_path: Path
) -> None:
    port = sdk_server().port  # a free port nobody listens on
    entry = {"url": f"http://127.0.0.1:{port}/mcp", "headers": {"X-Api-Key": "${SERVER_KEY}"}}
    write_settings(isolated_home, {"mcpServers": {"down": entry}})
    listed = _cli(isolated_home, "-C", str(tmp_path), "mcp", "list", "-v")
    called = _cli(isolated_home, "mcp", "call", "down", "echo")
    assert listed.returncode == 1, listed.stderr  # a server failed
    assert (
        f"down · failed: POST http://127.0.0.1:{port}/mcp: cannot connect (connection refused)"
        in listed.stdout
    )
    assert called.returncode == 1
    assert called.stdout.startswith("ERROR: MCP server 'down' is not running (failed: POST ")
    for done in (listed, called):
        assert SECRET not in done.stdout + done.stderr
        assert "Traceback" not in done.stderr
    assert "its stderr" not in listed.stdout  # a remote server has none
