"""`levelcode sandbox -- CMD ARGS...`: a command run exactly as the agent runs its commands.
Load-bearing direction: the command is confined (writes outside refused, network off unless
--allow-network, LevelCode's keys not in its environment) and, without a sandbox, nothing runs
(exit 2 with the reason), git's config is read-only (git config fails, saying why) and a
repository it creates with a config that runs something is moved out afterwards. The second
corpus: output streams, the exit status is the command's, git commit works, -C / --add-dir /
--allow-network widen it as they do for the agent, and Ctrl-C leaves nothing."""

from __future__ import annotations

import signal
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from levelcode.sandbox.diagnosis import GIT_READ_ONLY, NETWORK_OFF, WRITE_REFUSED
from levelcode.sandbox.quarantine import SUMMARY as QUARANTINE_SUMMARY
from tests.support.cli import LEVELCODE, cli_env, run_cli
from tests.support.listener import Listener
from tests.support.processes import wait_for_output
from tests.support.sandbox import host_folder
from tests.tools.support import processes_running, running_after


@pytest.fixture
def outside() -> Iterator[Path]:
    with host_folder() as folder:
        yield folder


def test_help_lists_the_sandbox_command(isolated_home: Path) -> None:
    done = run_cli(["--help"], isolated_home)
    assert "levelcode sandbox -- CMD" in done.stdout
    assert "--allow-network" in done.stdout
    usage = run_cli(["sandbox", "--help"], isolated_home)
    assert "exactly as the agent runs its commands" in " ".join(usage.stdout.split())


def test_nothing_to_run_is_a_usage_error(isolated_home: Path, tmp_path: Path) -> None:
    done = run_cli(["sandbox"], isolated_home, cwd=tmp_path)
    assert done.returncode == 2
    assert "name the command to run" in done.stderr


def test_without_a_sandbox_nothing_runs(isolated_home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    env = cli_env(isolated_home, PATH=str(tmp_path / "no-bin"))
    command = [str(LEVELCODE), "sandbox", "--", "/usr/bin/touch", str(marker)]
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60, check=False
    )
    assert done.returncode == 2
    assert "no sandbox on this machine: bwrap was not found on PATH" in done.stderr
    assert not marker.exists()


@pytest.mark.sandbox
def test_output_streams_and_the_exit_status_is_the_commands(isolated_home: Path, tmp_path: Path) -> None:
    done = run_cli(
        ["sandbox", "--", "sh", "-c", "echo out; echo err >&2; exit 3"], isolated_home, cwd=tmp_path
    )
    assert done.returncode == 3
    assert done.stdout == "out\nerr\n"  # merged, as the agent gets it
    assert done.stderr == ""  # not a terminal and no -v: no summary
    words = run_cli(["sandbox", "--", "printf", "%s|", "two words", "$HOME"], isolated_home, cwd=tmp_path)
    assert words.stdout == "two words|$HOME|"  # arguments pass as they are, never re-split


@pytest.mark.sandbox
def test_the_summary_says_what_is_confined(isolated_home: Path, tmp_path: Path) -> None:
    done = run_cli(["sandbox", "-v", "--", "true"], isolated_home, cwd=tmp_path)
    assert done.returncode == 0
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"sandbox: writable {tmp_path}, /tmp (private)")
    assert line.endswith("network off")


@pytest.mark.sandbox
def test_writes_outside_are_refused_unless_the_folder_is_added(
    isolated_home: Path, tmp_path: Path, outside: Path
) -> None:
    target = outside / "made-here"
    refused = run_cli(["sandbox", "--", "touch", str(target)], isolated_home, cwd=tmp_path)
    assert refused.returncode == 1
    assert "Read-only file system" in refused.stdout
    assert WRITE_REFUSED in refused.stderr
    assert not target.exists()
    allowed = run_cli(["sandbox", "--add-dir", str(outside), "--", "touch", str(target)], isolated_home)
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert target.exists()
    in_workspace = run_cli(["sandbox", "-C", str(outside), "--", "touch", "inside"], isolated_home)
    assert in_workspace.returncode == 0
    assert (outside / "inside").exists()


@pytest.mark.sandbox
def test_the_network_only_with_allow_network(isolated_home: Path, tmp_path: Path) -> None:
    with Listener() as listener:
        off = run_cli(
            ["sandbox", "--", "curl", "-sS", "-m", "5", "-d", "x=1", listener.url],
            isolated_home,
            cwd=tmp_path,
        )
        assert off.returncode != 0
        assert NETWORK_OFF in off.stderr
        assert listener.received() == b""
        on = run_cli(
            ["sandbox", "--allow-network", "--", "curl", "-s", "-m", "5", "-d", "x=1", listener.url],
            isolated_home,
            cwd=tmp_path,
        )
        assert on.returncode == 0
        assert b"x=1" in listener.received()


@pytest.mark.sandbox
def test_the_environment_is_the_agents(isolated_home: Path, tmp_path: Path) -> None:
    env = cli_env(isolated_home, ANTHROPIC_API_KEY="sk-ant-secret", PROJECT_SETTING="visible")
    command = [
        str(LEVELCODE),
        "sandbox",
        "--",
        "sh",
        "-c",
        "echo A=$ANTHROPIC_API_KEY P=$PROJECT_SETTING T=$TMPDIR",
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60, check=False
    )
    assert done.stdout == "A= P=visible T=/tmp\n"


@pytest.mark.sandbox
def test_ctrl_c_ends_the_command_and_everything_it_started(isolated_home: Path, tmp_path: Path) -> None:
    token = f"1000.{uuid.uuid4().int % 10**9}"
    command = [
        str(LEVELCODE),
        "sandbox",
        "--",
        "sh",
        "-c",
        f"setsid sleep {token} & echo started; sleep {token}",
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, env=cli_env(isolated_home), cwd=tmp_path)
    try:
        assert process.stdout is not None
        wait_for_output(process.stdout, "started")
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 130
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stdout:
            process.stdout.close()
    assert running_after(token) == []
    assert processes_running(token) == []


@pytest.mark.sandbox
def test_git_commit_works_a_config_write_says_why_and_a_planted_repository_is_moved_out(
    isolated_home: Path, tmp_path: Path
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    identity = ["-c", "user.name=a", "-c", "user.email=a@a"]
    commit = run_cli(
        ["sandbox", "--", "git", *identity, "commit", "--allow-empty", "-m", "x"], isolated_home, cwd=tmp_path
    )
    assert commit.returncode == 0, commit.stdout + commit.stderr
    assert commit.stderr == ""  # nothing refused, nothing moved
    config = run_cli(["sandbox", "--", "git", "config", "core.pager", "less"], isolated_home, cwd=tmp_path)
    assert config.returncode == 4
    assert "Device or resource busy" in config.stdout
    assert GIT_READ_ONLY in config.stderr
    plant = "git init -q sub && git -C sub config core.fsmonitor 'touch /x'"
    planted = run_cli(["sandbox", "--", "sh", "-c", plant], isolated_home, cwd=tmp_path)
    assert planted.returncode == 0  # the command's own status
    assert not (tmp_path / "sub" / ".git").exists()
    (moved, summary) = planted.stderr.splitlines()
    assert moved.startswith("[sandbox] moved sub/.git (a git repository")
    assert Path(moved.rsplit(" to ", 1)[1], "config").is_file()
    assert summary == QUARANTINE_SUMMARY
