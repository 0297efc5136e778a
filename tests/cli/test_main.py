"""The console script answers --version and --help, as installed and as `python -m levelcode`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from levelcode import __version__
from levelcode.cli.main import main
from tests.support.servers import FAULT_SERVER


def test_version_and_help_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"levelcode {__version__}"
    with pytest.raises(SystemExit):
        main(["--help"])
    help_text = capsys.readouterr().out
    for word in ("run", "mcp", "-C DIR", "--autopilot", "--provider"):
        assert word in help_text


def test_console_script_runs() -> None:
    script = shutil.which("levelcode")
    assert script is not None, "the levelcode console script is not installed in this environment"
    done = subprocess.run([script, "--version"], capture_output=True, text=True, check=True, timeout=30)
    assert done.stdout.strip() == f"levelcode {__version__}"
    module = subprocess.run(
        [sys.executable, "-m", "levelcode", "--help"], capture_output=True, text=True, timeout=30, check=True
    )
    assert module.returncode == 0
    assert "usage: levelcode" in module.stdout


def test_startup_does_not_import_the_mcp_sdk_or_provider_sdks() -> None:
    code = (
        "import sys; from levelcode.cli.main import build_parser; build_parser();"
        "import levelcode.mcp.config.files, levelcode.mcp.calls.catalog, levelcode.mcp.calls.policy;"
        "heavy = ('mcp', 'anthropic', 'openai', 'pydantic', 'httpx');"
        "commands = ('levelcode.cli.mcp.manage', 'levelcode.cli.mcp.import_servers',"
        " 'levelcode.mcp.config.importers', 'levelcode.mcp.config.edit', 'levelcode.mcp.launch.trust_store');"
        "bad = [m for m in sys.modules if m.split('.')[0] in heavy or m in commands];"
        "print(','.join(bad))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=30
    )
    assert done.stdout.strip() == ""


def test_a_missing_workspace_is_a_clear_error_not_a_traceback(isolated_home: Path) -> None:
    for args in (["mcp", "list"], ["mcp", "get", "x"], ["mcp", "revoke", "--all"], ["mcp", "import"]):
        done = subprocess.run(
            [sys.executable, "-m", "levelcode", "-C", "/no/such/dir", *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            env={**os.environ, "LEVELCODE_HOME": str(isolated_home)},
        )
        assert done.returncode == 2, args
        assert done.stderr == "levelcode: /no/such/dir is not a directory; pass an existing one with -C DIR\n"


def _imported_by_mcp_list(home: Path, servers: dict[str, object], status: int = 0) -> set[str]:
    """Top-level packages a real `levelcode mcp list` imports, from Python's own import log."""
    (home / "settings.json").write_text(json.dumps({"mcpServers": servers}))
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "levelcode", "mcp", "list"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "LEVELCODE_HOME": str(home)},
    )
    assert done.returncode == status, done.stdout
    names = [
        line.rsplit("|", 1)[-1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    ]
    return {name.split(".")[0] for name in names} | {name for name in names if name.startswith("levelcode.")}


def test_only_stdio_servers_import_nothing_remote(isolated_home: Path) -> None:
    stdio = {"fault": {"command": sys.executable, "args": [str(FAULT_SERVER)]}}
    imported = _imported_by_mcp_list(isolated_home, stdio)
    assert "levelcode.mcp.live.connection" in imported  # the server did start: the log is real
    remote = {"httpx2", "httpcore2", "mcp", "mcp_types", "anyio", "keyring"}
    remote |= {"levelcode.mcp.http.streamable", "levelcode.mcp.http.wire", "levelcode.mcp.http.legacy_sse"}
    remote |= {"levelcode.mcp.http.oauth.authorizer", "levelcode.mcp.http.oauth.store"}
    assert not imported & remote


def test_a_listing_into_a_pipe_imports_no_terminal_renderer_sandbox_or_provider(isolated_home: Path) -> None:
    """What a plain `mcp list` never touches stays unimported: rich (a pipe gets plain text), the
    sandbox (only a launch card asks about it), the providers (only a session needs one)."""
    stdio = {"fault": {"command": sys.executable, "args": [str(FAULT_SERVER)]}}
    imported = _imported_by_mcp_list(isolated_home, stdio)
    assert "levelcode.mcp.live.connection" in imported  # the server did start: the log is real
    unused = {"rich", "levelcode.ui.mcp_views_terminal", "levelcode.sandbox.confinement"}
    unused |= {"levelcode.providers.base", "levelcode.cli.start.resumed_session"}
    assert sorted(imported & unused) == []


def test_a_remote_server_imports_our_http_stack_but_never_the_sdk(isolated_home: Path) -> None:
    remote = {"remote": {"url": "http://127.0.0.1:9/mcp"}}
    imported = _imported_by_mcp_list(isolated_home, remote, status=1)  # nobody listens on port 9
    assert {"httpx2", "levelcode.mcp.http.streamable", "levelcode.mcp.http.oauth.authorizer"} <= imported
    assert not imported & {"mcp", "mcp_types", "keyring"}  # no sign-in stored: the keyring is not started


def test_allow_host_is_taken_at_every_level_and_steals_no_other_option() -> None:
    from levelcode.cli.main import build_parser

    parser = build_parser()
    assert parser.parse_args(["--allow-host", "A.example", "run", "x"]).allow_hosts == ["a.example"]
    assert parser.parse_args(["run", "--allow-host", "b.example:8080", "x"]).allow_hosts == ["b.example:8080"]
    assert parser.parse_args(["sandbox", "--allow-host", "c.example", "--", "true"]).allow_hosts == [
        "c.example"
    ]
    revoke = parser.parse_args(["mcp", "revoke", "--all"])  # not an abbreviation of --allow-*
    assert (revoke.all, getattr(revoke, "allow_hosts", None), getattr(revoke, "allow_network", None)) == (
        True,
        None,
        None,
    )
