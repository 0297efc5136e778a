"""run_command in the real sandbox. Load-bearing direction (first corpus): a confined command
cannot write outside the workspace, write git's config or hooks, read the secret stores or
LevelCode's own state, or reach a listener on 127.0.0.1 — each refusal is shown to be the
sandbox's doing by the same command succeeding unconfined; a git repository or control file it
creates in the workspace (a commondir in .git), or a named one it swaps in by renaming a folder, is
moved out afterwards and the result says where. The second corpus: ordinary work — pytest, npm
test, git status/diff/log/add/commit, uv run, builds writing build/ and node_modules/ — succeeds;
a git command that writes git's config fails with a line saying what stays read-only and what to
do."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from levelcode.platform import paths
from levelcode.sandbox.diagnosis import GIT_READ_ONLY, NETWORK_OFF, SECRETS_HIDDEN, WRITE_REFUSED
from levelcode.sandbox.quarantine import SUMMARY as QUARANTINE_SUMMARY
from levelcode.tools.base import ToolContext
from levelcode.tools.run_command import run_command
from tests.support.listener import Listener
from tests.support.sandbox import host_folder, python_in_tmp, real_confinement

pytestmark = pytest.mark.sandbox

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- not-a-real-key"


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture
def outside() -> Iterator[Path]:
    with host_folder() as folder:
        yield folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    _git(ws, "init", "-q")
    _git(ws, "config", "user.email", "dev@example.com")
    _git(ws, "config", "user.name", "Dev")
    return ws


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home inside a folder the command may write (as with `--add-dir ~`): only the explicit
    hiding, not the private /tmp, keeps its secrets and LevelCode's files out of reach."""
    home = tmp_path / "extra" / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET)
    (home / ".netrc").write_text("machine example.com password hunter2\n")
    levelcode_home = home / ".levelcode-home"
    (levelcode_home / "state").mkdir(parents=True)
    (levelcode_home / "settings.json").write_text('{"apiKey": "sk-settings-secret"}')
    (levelcode_home / "state" / "trust.json").write_text('{"trusted": "state-secret"}')
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("LEVELCODE_HOME", str(levelcode_home))
    return home


def confined(workspace: Path, *extra: Path) -> ToolContext:
    return ToolContext(workspace, extra_roots=extra, sandbox=real_confinement())


def unconfined(workspace: Path, *extra: Path) -> ToolContext:
    return ToolContext(workspace, extra_roots=extra)


async def _run(ctx: ToolContext, command: str) -> str:
    return await run_command(ctx, {"command": command, "timeout_seconds": 60})


# --- refused inside, and the same command works outside (so the test can fail) -----------------

WRITES = {
    "outside": "python3 -c \"open('{outside}', 'w').write('x')\"",
    "git config": "printf '[core]\\n\\tfsmonitor = touch {outside}\\n' >> .git/config",
    "git hook": "printf '#!/bin/sh\\ntouch {outside}\\n' > .git/hooks/pre-commit",
    "levelcode dir": "echo '{{}}' > .levelcode/mcp.json",
}
GIT_WRITES = {"git config", "git hook"}


@pytest.mark.parametrize("what", WRITES)
async def test_protected_writes_are_refused_and_explained(workspace: Path, outside: Path, what: str) -> None:
    (workspace / ".levelcode").mkdir()
    outside = outside / "outside.txt"
    command = WRITES[what].format(outside=outside)
    before = {p: p.read_bytes() for p in (workspace / ".git" / "config",)}
    result = await _run(confined(workspace), command)
    assert "Read-only file system" in result
    assert (GIT_READ_ONLY if what in GIT_WRITES else WRITE_REFUSED) in result
    assert not outside.exists()
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    assert not (workspace / ".levelcode" / "mcp.json").exists()
    assert {p: p.read_bytes() for p in before} == before
    positive = await _run(unconfined(workspace), command)
    assert positive.endswith("[exit code 0]"), positive


async def test_git_dir_and_the_workspace_cannot_be_swapped_away(workspace: Path) -> None:
    result = await _run(confined(workspace), "mv .git .git-old && mkdir .git && echo swapped")
    assert "swapped" not in result
    assert (workspace / ".git" / "config").is_file()
    assert not (workspace / ".git-old").exists()


async def test_secret_stores_and_levelcode_files_are_unreadable(workspace: Path, home: Path) -> None:
    extra = home.parent
    command = (
        "echo ran; cat ~/.ssh/id_rsa ~/.netrc $LEVELCODE_HOME/settings.json $LEVELCODE_HOME/state/trust.json"
    )
    result = await _run(confined(workspace, extra), command)
    assert result.startswith("ran\n"), result  # it did run, confined
    for secret in (SECRET, "hunter2", "sk-settings-secret", "state-secret"):
        assert secret not in result
    assert SECRETS_HIDDEN in result
    # No capability is left to take the hiding down again (as root, bwrap would keep them all).
    unhide = await _run(confined(workspace, extra), "umount ~/.ssh; mount -o remount,rw /; cat ~/.ssh/id_rsa")
    assert SECRET not in unhide
    writes = await _run(confined(workspace, extra), "echo '{}' > $LEVELCODE_HOME/state/trust.json")
    assert "state-secret" in (home / ".levelcode-home" / "state" / "trust.json").read_text(), writes
    positive = await _run(unconfined(workspace, extra), command)
    assert SECRET in positive
    assert "state-secret" in positive


async def test_the_network_is_off_and_a_local_listener_receives_nothing(workspace: Path) -> None:
    send = (
        'python3 -c "import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); '
        "s.sendto(b'udp-secret', ('127.0.0.1', {port}))\"; "
        "curl -sS --max-time 5 -d secret=1 {url}"
    )
    with Listener() as listener:
        command = send.format(url=listener.url, port=listener.port)
        result = await _run(confined(workspace), command)
        assert listener.received() == b""
        assert NETWORK_OFF in result
        await _run(unconfined(workspace), command)
        assert b"secret" in listener.received()  # positive control: the same command reaches it


async def test_allow_network_lets_commands_reach_the_listener(workspace: Path) -> None:
    ctx = ToolContext(workspace, sandbox=real_confinement(network=True))
    with Listener() as listener:
        result = await _run(ctx, f"curl -s --max-time 5 -d allowed=1 {listener.url}")
        assert b"allowed=1" in listener.received(), result


# --- ordinary work succeeds inside ----------------------------------------------------------------


async def test_pytest_runs(workspace: Path) -> None:
    (workspace / "test_sample.py").write_text("def test_ok():\n    assert 1 + 1 == 2\n")
    command = f"{sys.executable} -m pytest -q test_sample.py"
    result = await _run(confined(workspace, *python_in_tmp()), command)  # a checkout under /tmp: added
    assert "1 passed" in result, result
    assert result.endswith("[exit code 0]")


async def test_git_works_and_a_config_write_says_what_stays_read_only(workspace: Path) -> None:
    (workspace / "app.py").write_text("print('hi')\n")
    _git(workspace, "add", "app.py")
    _git(workspace, "commit", "-qm", "add app")
    (workspace / "app.py").write_text("print('hello')\n")
    reading = await _run(confined(workspace), "git status --short && git diff --stat && git log --oneline")
    assert " M app.py" in reading, reading
    assert "add app" in reading
    writing = await _run(confined(workspace), "git commit -qam 'change app' && git log --oneline -1")
    assert "change app" in writing, writing
    assert writing.endswith("[exit code 0]")
    assert "[sandbox]" not in writing  # nothing refused, nothing planted
    configuring = await _run(confined(workspace), "git config core.editor vi")
    assert "Device or resource busy" in configuring
    assert GIT_READ_ONLY in configuring
    assert "editor" not in (workspace / ".git" / "config").read_text()
    again = await _run(unconfined(workspace), "git config core.editor vi")
    assert again.endswith("[exit code 0]"), again  # positive control: outside, the write works


async def test_a_commondir_planted_in_the_git_dir_is_moved_out(workspace: Path) -> None:
    """Git may write .git, and a commondir does not exist yet, so nothing refuses the write: the
    check after the command moves it away."""
    result = await _run(confined(workspace), "echo /elsewhere > .git/commondir && echo planted")
    assert "planted" in result
    assert "[sandbox] moved .git/commondir (it points git at another repository" in result
    assert not (workspace / ".git" / "commondir").exists()


# --- what a command plants for git is moved out of the workspace, and the result says where -------


async def test_a_nested_repository_a_command_creates_is_moved_out(workspace: Path) -> None:
    command = "git init -q sub && git -C sub config core.fsmonitor 'touch /x' && echo made"
    result = await _run(confined(workspace), command)
    assert "made" in result
    assert not (workspace / "sub" / ".git").exists()
    (line,) = [line for line in result.splitlines() if line.startswith("[sandbox] moved sub/.git ")]
    moved_to = Path(line.rsplit(" to ", 1)[1])
    assert "fsmonitor = touch /x" in (moved_to / "config").read_text()  # kept whole, for a look
    for folder in moved_to.parents[:3]:  # the batch folder and those below it
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert moved_to.is_relative_to(paths.state_dir() / "sandbox" / "quarantine")
    assert QUARANTINE_SUMMARY in result
    quiet = await _run(confined(workspace), "git -C sub status || true")
    assert "[sandbox] moved" not in quiet  # and it is not moved twice: nothing new since


async def test_a_named_program_swapped_by_renaming_its_folder_is_moved_out(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read-only island does not stop its folder from being renamed away and made again."""
    (workspace / "tools").mkdir()
    (workspace / "tools" / "clean").write_text("#!/bin/sh\ncat\n")
    home = workspace.parent / "home"
    home.mkdir()
    (home / ".gitconfig").write_text('[filter "fmt"]\n\tclean = ./tools/clean\n')
    monkeypatch.setenv("HOME", str(home))
    swap = "mv tools tools.old && mkdir tools && echo 'touch /x' > tools/clean && echo swapped"
    result = await _run(confined(workspace), swap)
    assert "swapped" in result
    assert "[sandbox] moved tools/clean (a program your git config runs)" in result
    assert not (workspace / "tools" / "clean").exists()
    assert (workspace / "tools.old" / "clean").read_text() == "#!/bin/sh\ncat\n"  # the user's own


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
async def test_npm_test_and_an_install_that_writes_build_and_node_modules(workspace: Path) -> None:
    (workspace / "dep").mkdir()
    (workspace / "dep" / "package.json").write_text(json.dumps({"name": "dep", "version": "1.0.0"}))
    script = "const fs = require('fs');\nfs.mkdirSync('build');\nfs.writeFileSync('build/out.js', '1');\n"
    (workspace / "build.js").write_text(script)
    package = {"name": "t", "version": "1.0.0", "dependencies": {"dep": "file:./dep"}}
    package["scripts"] = {"test": "node build.js && echo npm-test-ok"}  # type: ignore[assignment]
    (workspace / "package.json").write_text(json.dumps(package))
    result = await _run(confined(workspace), "npm install --offline --no-audit --no-fund && npm test")
    assert "npm-test-ok" in result, result
    assert (workspace / "build" / "out.js").is_file()
    assert (workspace / "node_modules" / "dep").exists()


@pytest.mark.skipif(shutil.which("uv") is None, reason="uv is not installed")
async def test_uv_run_with_and_without_a_project(workspace: Path) -> None:
    pyproject = '[project]\nname = "tiny"\nversion = "0.1.0"\nrequires-python = ">=3.8"\ndependencies = []\n'
    (workspace / "pyproject.toml").write_text(pyproject)
    ctx = confined(workspace)
    bare = await _run(ctx, "uv run --no-project python -c 'print(6 * 7)'")
    assert "42" in bare, bare
    project = await _run(ctx, "uv run --offline python -c 'import sys; print(sys.prefix)'")
    assert str(workspace / ".venv") in project, project
