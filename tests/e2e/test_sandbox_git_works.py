"""Git works in the sandbox, end to end, in the four layouts a workspace has (tests/support/
git_layouts.py): a plain repository, a linked worktree whose git dir lies in another checkout's
`.git/worktrees/`, a package folder of a bigger repository, a superproject with a submodule.
Load-bearing direction: each ordinary git operation — add, commit, branch, switch, checkout,
cherry-pick, merge, tag, stash, rebase, reset, worktree add, and in the superproject a commit in
the submodule and `submodule update` — succeeds confined, nothing it leaves is moved away as
planted, and afterwards the user's own git sees the work (the commits are there, the repository
is sound). Once through `levelcode sandbox -- sh -c …` (one call per operation), once as the
commands of a headless `levelcode run --autopilot` turn (the CLI as installed, its command check
included). Before git's own files were writable in the sandbox, every one of these failed at
`git add` with "Unable to create '.git/index.lock': Read-only file system"."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.scripted_server import Reply, ToolCall
from tests.support.autopilot_runs import run_autopilot
from tests.support.cli import LEVELCODE, cli_env
from tests.support.git_layouts import LAYOUTS, Layout, layout, user_git

pytestmark = pytest.mark.sandbox

OPERATIONS: dict[str, str] = {
    "add": "echo one >> f.txt && git add f.txt",
    "commit": "git commit -qm one",
    "branch": "git branch topic",
    "switch": "git switch -q topic && echo two > g.txt && git add g.txt && git commit -qm two",
    "checkout": "git checkout -q work",
    "cherry-pick": "git cherry-pick topic",
    "merge": "git merge -q --no-edit topic",
    "tag": "git tag -a v1 -m v1",
    "stash": "echo three >> f.txt && git stash -q && git stash pop -q && git commit -qam three",
    "rebase": (
        "git switch -q topic && echo four > h.txt && git add h.txt && git commit -qm four "
        "&& git rebase -q work && git switch -q work"
    ),
    "reset": "git reset -q --soft HEAD~1 && git commit -qm three-again",
    "worktree add": (
        "git worktree add -q extra -b extra && echo five > extra/five.txt "
        "&& git -C extra add five.txt && git -C extra commit -qm five"
    ),
}
SUBMODULE_OPERATIONS: dict[str, str] = {
    "commit in the submodule": (
        "git -C lib switch -qc fix && echo c >> lib/lib.txt && git -C lib commit -qam fix "
        "&& git add lib && git commit -qm bump"
    ),
    "submodule update": "git -C lib checkout -q HEAD~1 && git submodule update && git submodule status",
}


def operations(scene: Layout) -> dict[str, str]:
    return {**OPERATIONS, **(SUBMODULE_OPERATIONS if scene.name == "with submodule" else {})}


@pytest.fixture(params=list(LAYOUTS))
def scene(request: pytest.FixtureRequest) -> Iterator[Layout]:
    with layout(request.param) as built:
        yield built


def sandboxed(scene: Layout, levelcode_home: Path, command: str) -> subprocess.CompletedProcess[str]:
    """`levelcode sandbox -- sh -c COMMAND` in the workspace, as the user runs it."""
    return subprocess.run(
        [str(LEVELCODE), "sandbox", "-C", str(scene.workspace), "--", "sh", "-c", command],
        capture_output=True,
        text=True,
        env=cli_env(levelcode_home, HOME=str(scene.home), GIT_CONFIG_NOSYSTEM="1"),
        timeout=120,
        check=False,
    )


def assert_the_work_is_there(scene: Layout) -> None:
    """The user's own git, outside: the commits made inside, a sound repository, a clean tree."""
    subjects = user_git(scene.home, scene.workspace, "log", "--format=%s", "work").stdout.split()
    assert {"one", "two", "three-again"} <= set(subjects), subjects
    assert "four" in user_git(scene.home, scene.workspace, "log", "--format=%s", "topic").stdout
    assert user_git(scene.home, scene.workspace, "tag", "--list").stdout.split() == ["v1"]
    assert "five" in user_git(scene.home, scene.workspace / "extra", "log", "-1", "--format=%s").stdout
    user_git(scene.home, scene.workspace, "fsck", "--no-progress", "--no-dangling")
    if scene.name == "with submodule":
        status = user_git(scene.home, scene.workspace, "submodule", "status").stdout
        assert status.startswith(" "), status  # checked out at the commit the superproject records
        assert "bump" in subjects


def test_each_git_operation_succeeds_through_levelcode_sandbox(scene: Layout, isolated_home: Path) -> None:
    for name, command in operations(scene).items():
        done = sandboxed(scene, isolated_home, command)
        assert done.returncode == 0, (
            f"{name} failed in the sandbox ({scene.name}):\n{done.stdout}{done.stderr}"
        )
        assert "[sandbox] moved" not in done.stderr, f"{name}: {done.stderr}"
    assert_the_work_is_there(scene)


def test_each_git_operation_succeeds_in_a_headless_autopilot_turn(scene: Layout, isolated_home: Path) -> None:
    commands = operations(scene)
    calls = [Reply(tool_calls=(ToolCall("run_command", {"command": c}),)) for c in commands.values()]
    done, told = run_autopilot(
        scene.workspace, isolated_home, [*calls, Reply(text="done")], home=scene.home, GIT_CONFIG_NOSYSTEM="1"
    )
    assert done.returncode == 0, done.stderr
    assert len(told) == len(commands), told
    for name, result in zip(commands, told, strict=True):
        assert result.endswith("[exit code 0]"), f"{name} ({scene.name}):\n{result}"
        assert "[sandbox] moved" not in result, f"{name}: {result}"
    assert_the_work_is_there(scene)


def test_a_repository_the_agent_makes_stays_and_one_that_runs_something_does_not(isolated_home: Path) -> None:
    """`git init` and `git clone` make repositories that run nothing: the agent can start a project
    and commit to it. One whose config runs a program is moved, as any planted repository."""
    with layout("plain") as scene:
        made = "git init -q new && git -C new commit -q --allow-empty -m first && git clone -q new copy"
        done = sandboxed(scene, isolated_home, made)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "[sandbox] moved" not in done.stderr, done.stderr
        later = sandboxed(scene, isolated_home, "git -C copy commit -q --allow-empty -m second")
        assert later.returncode == 0, later.stdout + later.stderr
        assert "second" in user_git(scene.home, scene.workspace / "copy", "log", "--format=%s").stdout
        armed = sandboxed(scene, isolated_home, "git init -q armed && git -C armed config core.pager 'sh x'")
        assert "[sandbox] moved armed/.git (a git repository" in armed.stderr
        assert not (scene.workspace / "armed" / ".git").exists()
