"""The egress filter, end to end through the real CLI, real bwrap, the real proxy and real servers.

Load-bearing direction (the attack): a sandboxed server or command reaches no host off its list —
not a service on the host's own 127.0.0.1, by a proxy request, a tunnel, or by talking to the
proxy's socket directly — and a repository's entry cannot put a host on the list; each refusal
leaves a line in the server's log naming the host and how to allow it. With the filter broken
open (every host admitted), test_a_repository_server_cannot_reach_the_hosts_own_services fails:
the listener receives the requests.

The second corpus (the feature): a repository's server started as `npx -y PACKAGE` or
`uvx PACKAGE`, approved sandboxed, connects on its first start with an empty private cache,
fetching from the registry the user configured (`npm_config_registry`, `UV_INDEX_URL`: a local
one on 127.0.0.1, built by tests/support/registries.py); a host your own entry lists, or
`--allow-host` names for commands, is reached; nothing of the proxy is left afterwards.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from levelcode.mcp.config.sandbox_entry import REPOSITORY_HOSTS_IGNORED
from tests.support.cli import LEVELCODE, cli_env, write_settings
from tests.support.listener import Listener
from tests.support.missing import PROGRAMS, program
from tests.support.processes import is_running, survivors, wait_for_output
from tests.support.registries import PACKAGE, package_registry
from tests.support.sandbox import repository_server, server_log
from tests.support.servers import FAULT_SERVER, ROOT

pytestmark = pytest.mark.sandbox


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def listener() -> Iterator[Listener]:
    with Listener() as served:
        yield served


def levelcode(home: Path, workspace: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LEVELCODE), "-C", str(workspace), *args],
        capture_output=True,
        text=True,
        env=cli_env(home, **env),
        cwd=ROOT,
        timeout=180,
        check=False,
    )


def call(home: Path, workspace: Path, server: str, tool: str, arguments: dict[str, Any], **env: str) -> str:
    done = levelcode(home, workspace, "mcp", "call", server, tool, json.dumps(arguments), **env)
    return done.stdout + done.stderr


def probe_entry(**extra: object) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(FAULT_SERVER), "--probes"], **extra}


def assert_nothing_left(home: Path) -> None:
    """No proxy or forwarder still runs for this LevelCode home, and no socket folder is left."""
    egress = home / "state" / "sandbox" / "egress"
    assert not egress.exists() or list(egress.iterdir()) == []
    assert [pid for pid, line in command_lines() if str(home) in line and "egress_" in line] == []


def command_lines() -> Iterator[tuple[int, str]]:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                yield int(entry.name), (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue


# --- the feature: npx and uvx servers, approved sandboxed, start on first try ---------------------


def test_an_npx_server_approved_sandboxed_connects_on_first_start(
    isolated_home: Path, workspace: Path
) -> None:
    with package_registry() as registry:
        repository_server(isolated_home, workspace, {"command": "npx", "args": ["-y", PACKAGE]})
        assert not (isolated_home / "state" / "servers").exists()  # an empty private cache
        said = call(
            isolated_home, workspace, "repo", "echo", {"text": "hi"}, npm_config_registry=registry.url + "/"
        )
        assert said.startswith("npm echo: hi"), said + server_log(isolated_home, "repo")
        assert registry.fetched(f"/{PACKAGE}-1.0.0.tgz")  # fetched, through the proxy, from it
        listed = levelcode(isolated_home, workspace, "mcp", "get", "repo")
        assert "network only to the npm registry" in listed.stdout
    assert_nothing_left(isolated_home)


def test_a_uvx_server_approved_sandboxed_connects_on_first_start(
    isolated_home: Path, workspace: Path
) -> None:
    program("uvx", PROGRAMS["uvx"])  # run by the server's start, where a missing one is only a failure
    with package_registry() as registry:
        repository_server(isolated_home, workspace, {"command": "uvx", "args": [PACKAGE]})
        said = call(isolated_home, workspace, "repo", "echo", {"text": "hi"}, UV_INDEX_URL=registry.index_url)
        assert said.startswith("python echo: hi"), said + server_log(isolated_home, "repo")
        assert registry.fetched(".whl")
    assert_nothing_left(isolated_home)


def test_a_registry_the_repository_names_is_refused(isolated_home: Path, workspace: Path) -> None:
    """The registry let through is the one the user configured: a repository's entry pointing npm
    at another does not widen the list (npm goes there, the proxy refuses it)."""
    with package_registry() as registry:
        entry = {"command": "npx", "args": ["-y", PACKAGE], "env": {"npm_config_registry": registry.url}}
        repository_server(isolated_home, workspace, entry)
        said = call(isolated_home, workspace, "repo", "echo", {"text": "hi"})
        assert "npm echo" not in said
        assert registry.requests == []
        port = registry.url.rsplit(":", 1)[1]
    # the failure itself says why, before npm's own words about the 403
    assert (
        "exited while starting (exit code 1); stderr: "
        f"[sandbox] refused a connection to 127.0.0.1:{port}" in said
    )
    log = server_log(isolated_home, "repo")
    assert f"[sandbox] refused a connection to 127.0.0.1:{port}: not on the network list" in log
    assert "declare the server in your own settings" in log
    assert_nothing_left(isolated_home)


# --- the attack: nothing off the list, the host's own services least of all ------------------------


def test_a_repository_server_cannot_reach_the_hosts_own_services(
    isolated_home: Path, workspace: Path, listener: Listener
) -> None:
    repository_server(isolated_home, workspace, probe_entry())
    port = listener.port
    attempts = {
        "try_fetch": [f"http://127.0.0.1:{port}/", f"http://localhost:{port}/", f"http://[::1]:{port}/"],
        "try_egress_socket": [
            f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n",
            f"GET http://127.0.0.1:{port}/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n",
            f"CONNECT localhost:{port} HTTP/1.1\r\n\r\n",
        ],
    }
    for tool, arguments in attempts.items():
        for argument in arguments:
            key = "url" if tool == "try_fetch" else "request"
            said = call(isolated_home, workspace, "repo", tool, {key: argument})
            assert "refused" in said or "403 Forbidden" in said, (argument, said)
    assert listener.received() == b""
    log = server_log(isolated_home, "repo")
    assert f"[sandbox] refused a connection to 127.0.0.1:{port}: not on the network list" in log
    assert f"[sandbox] refused a connection to localhost:{port}" in log
    assert_nothing_left(isolated_home)


def test_a_repository_cannot_put_a_host_on_its_list(
    isolated_home: Path, workspace: Path, listener: Listener
) -> None:
    entry = probe_entry(sandbox={"network": [f"127.0.0.1:{listener.port}"]})
    repository_server(isolated_home, workspace, entry)
    said = call(isolated_home, workspace, "repo", "try_fetch", {"url": listener.url})
    assert said.startswith("refused: HTTP 403"), said
    assert listener.received() == b""
    listed = levelcode(isolated_home, workspace, "mcp", "list", "-v")
    assert REPOSITORY_HOSTS_IGNORED.split(";")[0] in listed.stdout


# --- your own list ---------------------------------------------------------------------------------


def test_a_host_your_entry_lists_is_let_through_and_no_other(
    isolated_home: Path, workspace: Path, listener: Listener
) -> None:
    with Listener() as other:
        entry = probe_entry(sandbox={"network": [f"127.0.0.1:{listener.port}"]})
        write_settings(isolated_home, {"mcpServers": {"boxed": entry}})
        said = call(isolated_home, workspace, "boxed", "try_fetch", {"url": listener.url})
        assert said.startswith("fetched 200: ok"), said + server_log(isolated_home, "boxed")
        assert b"GET / HTTP/1.1" in listener.received()
        said = call(isolated_home, workspace, "boxed", "try_fetch", {"url": other.url})
        assert said.startswith("refused: HTTP 403"), said
        assert other.received() == b""
    log = server_log(isolated_home, "boxed")
    assert (
        f"[sandbox] refused a connection to 127.0.0.1:{other.port}: not on the network list; to allow it, "
        f'add "127.0.0.1:{other.port}" to "sandbox": {{"network": [...]}} '
        "in this server's entry in your settings"
    ) in log
    assert_nothing_left(isolated_home)


# --- commands ---------------------------------------------------------------------------------------

FETCH = "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())"


def sandbox_fetch(home: Path, workspace: Path, url: str, *flags: str) -> subprocess.CompletedProcess[str]:
    return levelcode(home, workspace, "sandbox", *flags, "--", "python3", "-c", FETCH, url)


def test_a_command_reaches_only_the_hosts_allow_host_names(
    isolated_home: Path, workspace: Path, listener: Listener
) -> None:
    done = sandbox_fetch(isolated_home, workspace, listener.url, "--allow-host", f"127.0.0.1:{listener.port}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == "ok\n"
    assert b"GET / HTTP/1.1" in listener.received()
    with Listener() as other:
        done = sandbox_fetch(
            isolated_home, workspace, other.url, "--allow-host", f"127.0.0.1:{listener.port}"
        )
        assert done.returncode == 1
        assert other.received() == b""
    assert f"[sandbox] refused a connection to 127.0.0.1:{other.port}" in done.stdout
    assert f"run with --allow-host 127.0.0.1:{other.port}" in done.stdout
    assert f"[sandbox] the network reaches only 127.0.0.1:{listener.port}" in done.stderr
    assert_nothing_left(isolated_home)


def test_without_a_list_a_command_has_no_network_and_no_proxy(
    isolated_home: Path, workspace: Path, listener: Listener
) -> None:
    done = sandbox_fetch(isolated_home, workspace, listener.url)
    assert done.returncode == 1
    assert listener.received() == b""
    assert "[sandbox] the network is off" in done.stderr
    assert "--allow-host HOST" in done.stderr


def test_your_settings_list_hosts_for_commands(
    isolated_home: Path, workspace: Path, listener: Listener
) -> None:
    write_settings(isolated_home, {"sandbox": {"network": [f"127.0.0.1:{listener.port}"]}})
    done = sandbox_fetch(isolated_home, workspace, listener.url)
    assert done.stdout == "ok\n", done.stderr
    (workspace / ".levelcode").mkdir()
    (workspace / ".levelcode" / "settings.json").write_text('{"sandbox": {"network": ["example.org"]}}')
    write_settings(isolated_home, {})
    done = sandbox_fetch(isolated_home, workspace, listener.url)  # a repository's list counts for nothing
    assert done.returncode == 1


def test_a_bad_allow_host_is_a_usage_error(isolated_home: Path, workspace: Path) -> None:
    done = levelcode(
        isolated_home, workspace, "sandbox", "--allow-host", "https://example.com/x", "--", "true"
    )
    assert done.returncode == 2
    assert "argument --allow-host: expected a host name such as api.example.com" in done.stderr


# --- programs under /tmp ----------------------------------------------------------------------------


def test_a_server_whose_program_lives_under_tmp_runs_sandboxed(isolated_home: Path, workspace: Path) -> None:
    folder = Path("/tmp") / f"levelcode-test-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    try:
        script = folder / "server.py"
        script.write_text(FAULT_SERVER.read_text())
        entry = {"command": sys.executable, "args": [str(script), "--probes"], "sandbox": True}
        write_settings(isolated_home, {"mcpServers": {"boxed": entry}})
        said = call(isolated_home, workspace, "boxed", "try_write", {"path": str(folder / "planted")})
        assert said.startswith("refused: [Errno 30] Read-only file system"), said
        assert not (folder / "planted").exists()
        alone = Path("/tmp") / f"levelcode-test-{uuid.uuid4().hex[:8]}.py"
        alone.write_text(FAULT_SERVER.read_text())
        alone.chmod(0o755)
        try:
            write_settings(isolated_home, {"mcpServers": {"alone": {"command": str(alone), "sandbox": True}}})
            said = call(isolated_home, workspace, "alone", "echo", {"text": "x"})
            assert f"its program {alone} lies in /tmp itself, which is private in the sandbox" in said
        finally:
            alone.unlink()
    finally:
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()


def test_a_command_whose_program_lives_under_tmp_is_told_why(isolated_home: Path, workspace: Path) -> None:
    folder = Path("/tmp") / f"levelcode-test-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    try:
        tool = folder / "tool.sh"
        tool.write_text("#!/bin/sh\necho hello\n")
        tool.chmod(0o755)
        done = levelcode(isolated_home, workspace, "sandbox", "--", str(tool))
        assert done.returncode == 127
        assert f"[sandbox] /tmp is private in the sandbox: {tool} is on this machine but not in there" in (
            done.stderr
        )
        assert f"--add-dir {folder}" in done.stderr
        done = levelcode(isolated_home, workspace, "sandbox", "--add-dir", str(folder), "--", str(tool))
        assert done.stdout == "hello\n", done.stderr
    finally:
        tool.unlink()
        folder.rmdir()


# --- nothing left behind ----------------------------------------------------------------------------


def marked(marker: str) -> list[int]:
    """The running processes whose environment carries `marker`: proxy, bwrap, forwarder, server."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "environ").read_bytes() and is_running(int(entry.name)):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_killing_levelcode_leaves_no_proxy_forwarder_or_server(isolated_home: Path, workspace: Path) -> None:
    marker = f"egress-test-{uuid.uuid4().hex}"
    entry = {  # a server that outlives its stdin and shrugs off SIGTERM
        "command": sys.executable,
        "args": [str(FAULT_SERVER), "--linger", "--ignore-sigterm"],
        "env": {"EGRESS_TEST_MARKER": marker},
        "sandbox": True,
    }
    write_settings(isolated_home, {"mcpServers": {"boxed": entry}})
    command = [str(LEVELCODE), "-C", str(workspace), "mcp", "call", "boxed", "hang", "{}"]
    cli = subprocess.Popen(
        command, env=cli_env(isolated_home), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        wait_for_output(cli.stderr, "calling boxed/hang", within=60)  # started, and busy
        running = marked(marker)  # the proxy, bwrap (outside, and the sandbox's init), forwarder, server
        assert len(running) >= 5, running
    finally:
        cli.kill()  # SIGKILL: nothing of LevelCode's own shutdown runs
        cli.wait(timeout=30)
        assert cli.stderr is not None
        cli.stderr.close()
    assert survivors(running, within=15) == []
