"""The user's servers a command line spawned early, spawned again at once on its next run, before
LevelCode parses arguments or reads settings (mcp/stdio/remembered.py).

Load-bearing direction: what is spawned from the record is only ever what the same command line,
from the same directory, with the same environment and the same settings file spawned last time;
anything the session does not claim is ended, never left running; and the record holds no secret
(no expanded `${VAR}`, no value of the environment, no `env` of an entry, no `run` prompt).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from levelcode.core.settings import load_settings
from levelcode.mcp import early_start
from levelcode.mcp.stdio import early, remembered
from tests.support.processes import read_pids, survivors
from tests.support.servers import FAULT_SERVER

LEVELCODE = str(Path(sys.executable).parent / "levelcode")
LINE = ["mcp", "list"]
# spawn what `mcp list` spawned last time, then say what this process had imported by then
PROBE = (
    "import sys; from levelcode.mcp.stdio.remembered import spawn_remembered;"
    "from levelcode.mcp.stdio import early;"
    "started = spawn_remembered(['mcp', 'list']);"
    "heavy = ('argparse', 'dataclasses', 'typing', 'asyncio', 'levelcode.cli.main');"
    "heavy = [m for m in heavy if m in sys.modules];"
    "print(started, early.unclaimed(), ','.join(heavy))"
)


def _fault(pid_file: Path, *flags: str) -> dict[str, object]:
    return {"command": sys.executable, "args": [str(FAULT_SERVER), "--pid-file", str(pid_file), *flags]}


def _write_settings(home: Path, servers: Mapping[str, object]) -> None:
    (home / "settings.json").write_text(json.dumps({"mcpServers": servers}))


def _levelcode(workspace: Path, env: Mapping[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LEVELCODE, *args],
        cwd=workspace,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _probe(workspace: Path, env: Mapping[str, str]) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=workspace,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return done.stdout.split(" ")


def _record(home: Path) -> Path:
    return home / "state" / remembered.RECORD_NAME


def test_the_next_run_spawns_the_server_before_the_rest_of_levelcode_and_only_once(
    isolated_home: Path, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    _write_settings(isolated_home, {"fault": _fault(pids)})
    env = dict(os.environ)
    first = _levelcode(tmp_path, env, *LINE)
    assert first.returncode == 0, first.stderr
    assert stat.S_IMODE(_record(isolated_home).stat().st_mode) == 0o600
    assert len(read_pids(pids)) == 1

    # what the console script does first, seen from outside: spawned, and nothing heavy imported yet
    assert _probe(tmp_path, env) == ["1", "1", "\n"]
    assert survivors(read_pids(pids)) == []  # the probe's process, unclaimed, ended at its exit

    # the session claims that very process: the one that answers is the one spawned from the record
    before = len(read_pids(pids))
    session = (
        "from levelcode.mcp.stdio.remembered import spawn_remembered; from levelcode.mcp.stdio import early;"
        "assert spawn_remembered(['mcp', 'list']) == 1; pid = next(iter(early._waiting.values())).pid;"
        "from levelcode.cli.main import main; code = main(['mcp', 'list']); print('spawned', pid, code)"
    )
    done = subprocess.run(
        [sys.executable, "-c", session],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "fault__echo" in done.stdout, done.stderr
    assert read_pids(pids)[before:] == [int(done.stdout.split("spawned ")[1].split()[0])]

    before = len(read_pids(pids))
    second = _levelcode(tmp_path, env, *LINE)
    assert second.returncode == 0, second.stderr
    assert "fault__echo" in second.stdout
    assert len(read_pids(pids)) == before + 1  # the console script's way: one process
    assert survivors(read_pids(pids)) == []
    log = (isolated_home / "state" / "logs" / "fault.log").read_text()
    assert log.count(" starting ") == 3  # once per run


def test_nothing_is_spawned_from_the_record_once_what_it_was_made_from_changed(
    isolated_home: Path, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    _write_settings(isolated_home, {"fault": _fault(pids)})
    env = dict(os.environ)
    assert _levelcode(tmp_path, env, *LINE).returncode == 0
    assert _probe(tmp_path, env)[0] == "1"
    before = len(read_pids(pids))

    assert _probe(tmp_path, {**env, "OLDPWD": "/elsewhere", "_": "/bin/x"})[0] == "1"  # the shell's notes
    assert _probe(tmp_path, {**env, "SOMETHING_NEW": "1"})[0] == "0"  # another environment
    other = tmp_path / "elsewhere"
    other.mkdir()
    assert _probe(other, env)[0] == "0"  # another directory
    _write_settings(isolated_home, {"fault": {**_fault(pids), "disabled": True}})
    assert _probe(tmp_path, env)[0] == "0"  # the server was disabled since
    assert len(read_pids(pids)) == before
    assert survivors(read_pids(pids)) == []


def test_an_environment_value_changed_under_the_record_spawns_nothing(
    isolated_home: Path, tmp_path: Path
) -> None:
    """The same variable names with one value changed (a token rotated, another PATH) is another
    environment: the server inherits values, so the record is keyed on them, not on names alone."""
    pids = tmp_path / "pids"
    _write_settings(isolated_home, {"fault": _fault(pids)})
    env = {**os.environ, "DEPLOY_STAGE": "staging"}
    assert _levelcode(tmp_path, env, *LINE).returncode == 0
    before = len(read_pids(pids))
    assert _probe(tmp_path, {**env, "DEPLOY_STAGE": "production"})[0] == "0"
    assert _probe(tmp_path, {**env, "PATH": f"{tmp_path}:{env['PATH']}"})[0] == "0"
    assert len(read_pids(pids)) == before  # nothing spawned for either
    assert _probe(tmp_path, env)[0] == "1"  # the very same values: spawned, as before
    assert survivors(read_pids(pids)) == []


def test_a_remembered_process_the_session_does_not_claim_is_ended(
    isolated_home: Path, tmp_path: Path
) -> None:
    # a record that names a server the settings no longer start (written as a stale one would be)
    pids = tmp_path / "pids"
    _write_settings(isolated_home, {})
    env = dict(os.environ)
    write = (
        "import os, sys; from levelcode.mcp.stdio import remembered;"
        "from levelcode.mcp.config.specs import Provenance, StdioServerSpec;"
        "from levelcode.mcp.stdio.launch_spec import StdioLaunch;"
        f"argv = [sys.executable, {str(FAULT_SERVER)!r}, '--pid-file', {str(pids)!r}];"
        "spec = StdioServerSpec('gone', sys.executable, Provenance('user', 'x'), tuple(argv[1:]));"
        "launch = StdioLaunch('gone', tuple(argv), {'PATH': os.environ['PATH']}, os.getcwd());"
        "remembered.remember(['mcp', 'list'], [(spec, launch)])"
    )
    subprocess.run([sys.executable, "-c", write], cwd=tmp_path, env=env, check=True, timeout=30)
    done = _levelcode(tmp_path, env, *LINE)
    assert done.returncode == 0, done.stderr
    started = read_pids(pids)
    assert len(started) == 1  # it was spawned from the record...
    assert survivors(started) == []  # ...and ended with LevelCode, as nobody claimed it
    assert not _record(isolated_home).exists() or "gone" not in _record(isolated_home).read_text()


def test_the_record_holds_no_secret(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET_ARG", "arg-5ecret-value")
    monkeypatch.setenv("SECRET_TOKEN", "tok-5ecret-value")
    pids = tmp_path / "pids"
    plain = _fault(pids)
    servers = {
        "plain": plain,
        "token_in_args": _fault(pids, "--x", "${SECRET_ARG}"),
        "token_in_env": {**plain, "env": {"TOKEN": "${SECRET_TOKEN}"}},
        "literal_env": {**plain, "env": {"TOKEN": "lit-5ecret-value"}},
    }
    _write_settings(isolated_home, servers)
    settings = load_settings(tmp_path, isolated_home / "settings.json")
    try:
        begun = early_start.start_user_servers(tmp_path, settings)
        assert sorted(begun.started) == sorted(servers)
        remembered.remember(LINE, begun.launched)
        remembered.remember(["run", "deploy with the 5ecret password"], begun.launched)
    finally:
        early.end_unclaimed()
    text = _record(isolated_home).read_text()
    kept = [launch["argv"] for entry in json.loads(text)["entries"] for launch in entry["launches"]]
    plain_argv = [sys.executable, str(FAULT_SERVER), "--pid-file", str(pids)]
    assert kept == [plain_argv, plain_argv]  # only the plain one, for each command line
    for secret in ("5ecret", os.environ["PATH"], os.environ["HOME"]):
        assert secret not in text


def test_the_record_is_rewritten_only_when_it_changes(isolated_home: Path, tmp_path: Path) -> None:
    remembered.remember(LINE, [])  # nothing spawned, nothing to note: no file at all
    assert not _record(isolated_home).exists()
    pids = tmp_path / "pids"
    _write_settings(isolated_home, {"fault": _fault(pids)})
    settings = load_settings(tmp_path, isolated_home / "settings.json")
    try:
        begun = early_start.start_user_servers(tmp_path, settings)
    finally:
        early.end_unclaimed()
    remembered.remember(LINE, begun.launched)
    written = _record(isolated_home).stat().st_mtime_ns
    remembered.remember(LINE, begun.launched)
    remembered.remember(["mcp", "get", "fault"], [])
    assert _record(isolated_home).stat().st_mtime_ns == written


def test_a_damaged_or_foreign_record_spawns_nothing(isolated_home: Path, tmp_path: Path) -> None:
    record = _record(isolated_home)
    record.parent.mkdir(parents=True, exist_ok=True)
    for text in ("", "not json", "[]", '{"entries": 3}', '{"entries": [{"conditions": 1, "launches": "x"}]}'):
        record.write_text(text)
        assert remembered.spawn_remembered(LINE) == 0
    assert early.unclaimed() == 0
