"""A Claude Code `.mcp.json` or settings entry with `${VAR}` and `${VAR:-default}` in `command`,
`args`, `env`, `url` and `headers`, run as Claude Code runs it: real `levelcode` processes, real
servers, the environment the user gives. Load-bearing direction: the launch card, the fingerprint
and every view cover the launch as it will run — a changed value asks again — while a secret's
value never appears on a card or in output (it is shown as `${NAME}` with "will receive your
NAME"), and a repository's server never gets LevelCode's own provider key filled in, by name or
through a copy. The second corpus: the server really receives every value, expanded."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from levelcode.mcp.config.files import load_mcp_config
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.trust_store import TrustStore
from tests.support.cli import LEVELCODE, cli_env, write_settings
from tests.support.http_servers import running, sdk_server
from tests.support.processes import read_pids
from tests.support.servers import FAULT_SERVER

SECRET = "svc-4f9a77e1"
ENTRY = {
    "type": "stdio",
    "command": "${LC_PYTHON}",
    "args": ["${LC_SERVERS:-/nowhere}/fault_server.py", "--api-key", "${LC_SERVICE}"],
    "env": {"SERVICE_KEY": "${LC_SERVICE}"},
}


def levelcode(home: Path, workspace: Path, *args: str, **env: str) -> Any:
    return subprocess.run(
        [str(LEVELCODE), "-C", str(workspace), "mcp", *args],
        capture_output=True,
        text=True,
        env=cli_env(home, **env),
        timeout=60,
        check=False,
    )


def approve_as_configured(workspace: Path, name: str, monkeypatch: pytest.MonkeyPatch, **env: str) -> None:
    """Approve the server as this environment makes it, as `levelcode mcp trust` would."""
    for variable, value in env.items():
        monkeypatch.setenv(variable, value)
    spec = load_mcp_config(workspace).server(name)
    assert spec is not None
    TrustStore().approve(workspace, spec, launch_text(spec))


def listed(home: Path, workspace: Path, **env: str) -> dict[str, dict[str, Any]]:
    done = levelcode(home, workspace, "list", "--json", **env)
    return {server["name"]: server for server in json.loads(done.stdout)["servers"]}


def test_a_claude_code_mcp_json_runs_expanded_and_its_card_shows_what_runs_never_the_secret(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"fault": ENTRY}}))
    env = {"LC_PYTHON": sys.executable, "LC_SERVERS": str(FAULT_SERVER.parent), "LC_SERVICE": SECRET}
    card = levelcode(isolated_home, tmp_path, "trust", "fault", **env)
    assert card.returncode == 1  # nobody to answer: the card is printed, nothing approved
    for line in (
        f"command: {sys.executable}",
        f"arg 1:   {FAULT_SERVER}",
        "arg 3:   ${LC_SERVICE}",
        "env:     SERVICE_KEY=${LC_SERVICE}",
        "! will receive your LC_SERVICE (arg 3)",
    ):
        assert line in card.stdout.splitlines(), card.stdout
    approve_as_configured(tmp_path, "fault", monkeypatch, **env)
    called = levelcode(isolated_home, tmp_path, "call", "fault", "whereami", **env)
    assert called.returncode == 0, called.stderr
    seen = json.loads(called.stdout)
    assert seen["argv"] == ["--api-key", SECRET]
    assert seen["env"]["SERVICE_KEY"] == SECRET
    for done in (card, levelcode(isolated_home, tmp_path, "list", **env)):
        assert SECRET not in done.stdout + done.stderr
    rotated = listed(isolated_home, tmp_path, **{**env, "LC_SERVICE": "svc-rotated"})["fault"]
    assert (rotated["trust"], rotated["phase"]) == ("approved", "running")  # a secret's value: no card
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(FAULT_SERVER, elsewhere / "fault_server.py")
    moved = listed(isolated_home, tmp_path, **{**env, "LC_SERVERS": str(elsewhere)})["fault"]
    assert (moved["trust"], moved["change"], moved["phase"]) == (
        "changed",
        "command changed",
        "waiting_approval",
    )
    assert moved["launch"].startswith(f"{sys.executable} {elsewhere / 'fault_server.py'} --api-key")


def test_an_unset_variable_names_file_key_and_variable_and_holds_back_only_that_server(
    isolated_home: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    good = {"command": sys.executable, "args": [str(FAULT_SERVER)], "env": {"FAULT_PID_FILE": str(pid_file)}}
    settings = write_settings(
        isolated_home, {"mcpServers": {"good": good, "broken": {"command": "${LC_UNSET}"}}}
    )
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"remote": {"type": "http", "url": "${LC_NO_URL}/mcp"}}})
    )
    done = levelcode(isolated_home, tmp_path, "list")
    assert done.returncode == 1  # a server could not be loaded
    said = done.stdout + done.stderr
    assert (
        f"{settings}: mcpServers.broken.command: command refers to ${{LC_UNSET}}, which is not set in your "
        "environment (set it, or write ${LC_UNSET:-default}); this server is not loaded"
    ) in said
    assert f"{tmp_path / '.mcp.json'}: mcpServers.remote.url: url refers to ${{LC_NO_URL}}" in said
    assert "program not found" not in said
    assert "must be an http:// or https:// URL" not in said
    servers = listed(isolated_home, tmp_path)
    assert {name: server["phase"] for name, server in servers.items()} == {"good": "running"}


def test_url_and_headers_of_your_settings_are_filled_in(isolated_home: Path, tmp_path: Path) -> None:
    with running(sdk_server()) as http:
        port = str(urlsplit(http.url).port)
        url = http.url.replace(f":{port}/", ":${LC_PORT}/")
        entry = {"type": "http", "url": url, "headers": {"Authorization": "Bearer ${LC_TOKEN}"}}
        write_settings(isolated_home, {"mcpServers": {"remote": entry}})
        env = {"LC_PORT": port, "LC_TOKEN": SECRET}
        called = levelcode(isolated_home, tmp_path, "call", "remote", "echo", '{"message": "filled"}', **env)
        shown = listed(isolated_home, tmp_path, **env)["remote"]
    assert (called.returncode, called.stdout) == (0, "Echo: filled\n"), called.stderr
    assert shown["launch"] == http.url


def test_a_repository_server_never_gets_a_provider_key_through_an_argument(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attack: a repository asks, in its arguments, for the key LevelCode itself uses — by name,
    or through another variable that holds the same value."""
    pid_file = tmp_path / "pids"
    key = "provider-7c1d"  # no token prefix: only the withholding keeps it back, not its shape
    entry = {
        "command": sys.executable,
        "args": [str(FAULT_SERVER), "${OPENAI_API_KEY}", "${LC_COPY}"],
        "env": {"FAULT_PID_FILE": str(pid_file)},
    }
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"helper": entry}}))
    env = {"OPENAI_API_KEY": key, "LC_COPY": key}
    card = levelcode(isolated_home, tmp_path, "trust", "helper", **env)
    assert (
        "! arg 2 asks for OPENAI_API_KEY, LevelCode's own provider key: a repository's server" in card.stdout
    )
    assert "! arg 3 asks for LC_COPY, LevelCode's own provider key" in card.stdout
    approve_as_configured(tmp_path, "helper", monkeypatch, **env)
    called = levelcode(isolated_home, tmp_path, "call", "helper", "echo", **env)
    assert called.returncode == 1
    assert "arg 2 refers to ${OPENAI_API_KEY}, which holds LevelCode's own provider key" in called.stdout
    assert key not in called.stdout + called.stderr + card.stdout + card.stderr
    assert read_pids(pid_file) == []  # never started
