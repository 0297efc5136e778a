"""What the check for planted git files cannot list, end to end: `levelcode sandbox -- sh -c …`
(the command check out of the way, tests/support/unchecked_levelcode.py) plants a repository
whose config runs a payload, and hides it from the check — a folder made unlistable (`chmod 311`),
the check's bound reached, a path past PATH_MAX, a folder made a git dir by `HEAD` and `commondir`
alone — then the user's own plain `git status`, outside the sandbox. Inside a git dir git may
write, the same two ways hide a link git writes through, or a submodule's git dir whose hook
runs: past the git dirs' bound, in a folder made unlistable; then the user's `git commit`, or
`git submodule update --init`. Load-bearing direction: the
payload never runs (its marker never appears), and stderr says what was done. Positive control: the
same command with the sandbox confining nothing and checking nothing afterwards does plant it, and
the user's git runs it — so each test can fail.

Root lists every folder whatever its mode, so the unlistable-folder attacks can only be seen
failing as another user: they skip as root, and .ci/run runs this file again as an unprivileged
user. A second corpus: a workspace bigger than the bound loses nothing of the user's, and what the
check could not list before the command stays read-only for it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.cli import cli_env
from tests.support.sandbox import host_folder
from tests.support.unchecked_levelcode import GIT_DIR_LIMIT, SCAN_LIMIT, SWITCH
from tests.support.users_git import users_git

pytestmark = pytest.mark.sandbox

ROOT = Path(__file__).resolve().parents[2]
NOT_ROOT = pytest.mark.skipif(
    os.geteuid() == 0,
    reason="root lists every folder whatever its mode: only another user sees this hole "
    "(.ci/run runs this file again unprivileged)",
)
LONG = "x" * 250  # a folder name near NAME_MAX: a few make a path past PATH_MAX


@dataclass(frozen=True)
class Scene:
    repository: Path  # the user's repository, one commit
    workspace: Path  # where LevelCode runs: the repository, or a package inside it
    home: Path  # the user's HOME (their ~/.gitconfig), the one the sandbox is given
    marker: Path
    payload: Path  # `touch marker`: what every planted config asks git to run


def user_git(scene: Scene, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return users_git(scene.home, *args, cwd=cwd)


def _must(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr


def _scene(tmp_path: Path, outside: Path, package: str = "") -> Scene:
    repository = tmp_path / "repo"
    workspace = repository / package if package else repository
    workspace.mkdir(parents=True)
    marker, payload = outside / "marker", outside / "payload.sh"
    payload.write_text(f"touch {marker}\n")
    scene = Scene(repository, workspace, Path(os.environ["HOME"]), marker, payload)
    (workspace / "notes.txt").write_text("first\n")
    for args in (("init", "-q"), ("add", "."), ("commit", "-qm", "first")):
        _must(user_git(scene, *args, cwd=repository))
    return scene


@pytest.fixture
def outside() -> Iterator[Path]:
    with host_folder() as folder:
        yield folder


def sandboxed(
    scene: Scene,
    script: str,
    *,
    sandbox: bool = True,
    limit: int | None = None,
    git_dir_limit: int | None = None,
) -> subprocess.CompletedProcess[str]:
    """`levelcode sandbox -C WORKSPACE -- bash -c SCRIPT`; `sandbox=False`: the positive control."""
    extra = {SCAN_LIMIT: str(limit)} if limit else {}
    if git_dir_limit:
        extra[GIT_DIR_LIMIT] = str(git_dir_limit)
    if not sandbox:
        extra[SWITCH] = "off"
    command = [sys.executable, "-m", "tests.support.unchecked_levelcode", "sandbox"]
    return subprocess.run(
        [*command, "-C", str(scene.workspace), "--", "bash", "-c", script.format(payload=scene.payload)],
        capture_output=True,
        text=True,
        env=cli_env(Path(os.environ["LEVELCODE_HOME"]), HOME=str(scene.home), **extra),
        cwd=ROOT,
        timeout=120,
        check=False,
    )


# --- the attacks: the workspace, what the sandboxed command runs, where the user's git then runs ---

FSMONITOR = "printf '[core]\\n\\tfsmonitor = \"sh {payload}\"\\n' >> "
# git appends to logs/HEAD at every commit, through a link, creating what it points at.
_LINKED_REFLOG = 'rm -f .git/logs/HEAD && ln -s "$(dirname {payload})/marker" .git/logs/HEAD'
_COMMIT = ("commit", "-q", "--allow-empty", "-m", "after")
# A submodule git dir git did not make, whose post-checkout hook `git submodule update --init`
# runs; it holds the superproject's objects and a branch at its commit, which the index names.
_NEW_MODULE = (
    "git init -q --bare .git/modules/lib && git config --file .git/modules/lib/config core.bare false "
    "&& cp -r .git/objects/. .git/modules/lib/objects/ && "
    "git --git-dir=.git/modules/lib update-ref refs/heads/main $(git rev-parse HEAD) && "
    "printf '#!/bin/sh\\nsh {payload}\\n' > .git/modules/lib/hooks/post-checkout && "
    "chmod +x .git/modules/lib/hooks/post-checkout && "
    "printf '[submodule \"lib\"]\\n\\tpath = lib\\n\\turl = ./nowhere\\n' > .gitmodules && "
    "git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),lib && git add .gitmodules"
)


def _deep_repository(scene: Scene) -> str:
    """A repository moved to a path just past PATH_MAX (4,096), where neither git nor a check by
    name reaches it — until a folder above it gets a shorter name."""
    depth, last = _depth_past_path_max(scene.workspace)
    return (
        "git init -q r && " + FSMONITOR + "r/.git/config && ws=$PWD && "
        f"for i in $(seq {depth}); do mkdir {LONG} && cd {LONG} || exit 3; done && "
        f'mv "$ws/r" {last}'
    )


def _depth_past_path_max(workspace: Path) -> tuple[int, str]:
    target = 4150  # past 4,095; and below it again once the first long name is one character
    depth = (target - len(str(workspace)) - 2) // (len(LONG) + 1)
    return depth, "r" * (target - len(str(workspace)) - (len(LONG) + 1) * depth - 1)


def _shortened(scene: Scene) -> Path:
    """The user renames the first long folder: the deep repository comes within git's reach."""
    depth, last = _depth_past_path_max(scene.workspace)
    if (scene.workspace / LONG).is_dir():
        (scene.workspace / LONG).rename(scene.workspace / "s")
    return scene.workspace.joinpath("s", *[LONG] * (depth - 1), last)


@dataclass(frozen=True)
class Attack:
    script: Callable[[Scene], str]
    where: Callable[[Scene], Path]  # the folder the user's `git status` runs in afterwards
    said: tuple[str, ...]  # what stderr says when the sandbox is on
    package: str = ""  # the workspace is this folder of the repository (a monorepo's package)
    limit: int | None = None  # the check's bound, in entries listed afresh
    git_dir_limit: int | None = None  # the same, in the git dirs
    user: tuple[tuple[str, ...], ...] = (("status",),)  # what the user's git runs afterwards
    marks: tuple[pytest.MarkDecorator, ...] = field(default=())


ATTACKS: dict[str, Attack] = {
    "a package made a repository, then unlistable": Attack(
        lambda _: "git init -q . && " + FSMONITOR + ".git/config && chmod 311 .",
        lambda scene: scene.workspace,
        ("back read and search permission for you (mode 0311, now 0711)", "[sandbox] moved .git ("),
        package="packages/app",
        marks=(NOT_ROOT,),
    ),
    "a repository in an unlistable folder, behind a link": Attack(
        lambda _: "git init -q a/b && " + FSMONITOR + "a/b/.git/config && chmod 311 a && ln -s a/b tools",
        lambda scene: scene.workspace / "tools",
        ("[sandbox] gave a back read and search permission for you (mode 0311", "[sandbox] moved a/b/.git ("),
        marks=(NOT_ROOT,),
    ),
    "the bound reached in the root's own listing": Attack(
        lambda _: "for i in $(seq 30); do : > f$i; done; git init -q . && " + FSMONITOR + ".git/config",
        lambda scene: scene.workspace,
        ("[sandbox] moved .git (",),
        package="packages/app",
        limit=20,
    ),
    "a folder past the bound": Attack(
        lambda _: (
            "mkdir many later && for i in $(seq 30); do : > many/f$i; done; "
            "git init -q later/x && " + FSMONITOR + "later/x/.git/config"
        ),
        lambda scene: scene.workspace / "later" / "x",
        ("[sandbox] moved later", "the check had listed 20 entries afresh"),
        limit=20,
    ),
    "a repository past PATH_MAX": Attack(
        _deep_repository,
        _shortened,
        ("[sandbox] moved " + LONG, "its path is longer than 3,072 characters"),
    ),
    "a folder made a git dir by HEAD and commondir alone": Attack(
        lambda _: (
            'C="${{XDG_CACHE_HOME:-$HOME}}/common"; mkdir -p "$C/objects" "$C/refs/heads" x && '
            "printf '[core]\\n\\trepositoryformatversion = 1\\n\\tbare = false\\n"
            '\\tfsmonitor = "sh {payload}"\\n[extensions]\\n\\tworktreeConfig = true\\n\' > "$C/config" && '
            "echo 'ref: refs/heads/main' > x/HEAD && echo \"$C\" > x/commondir && "
            "printf '[core]\\n\\tworktree = ..\\n' > x/config.worktree"
        ),
        lambda scene: scene.workspace / "x",
        ("[sandbox] moved x/HEAD (a folder made into a git dir",),
    ),
    # The git dir holds ~40 entries when the command starts, so all are listed: then 80 more at its
    # top are listed afresh before logs/, whose link is past the bound.
    "a link in a git dir past the bound": Attack(
        lambda _: "for i in $(seq 80); do : > .git/junk$i; done; " + _LINKED_REFLOG,
        lambda scene: scene.workspace,
        ("[sandbox] moved .git/logs (", "the check had listed 60 entries afresh"),
        git_dir_limit=60,
        user=(_COMMIT,),
    ),
    "a link in a git dir's folder made unlistable": Attack(
        lambda _: _LINKED_REFLOG + " && chmod 311 .git/logs",
        lambda scene: scene.workspace,
        ("[sandbox] gave .git/logs back read and search permission", "[sandbox] moved .git/logs/HEAD ("),
        user=(_COMMIT,),
        marks=(NOT_ROOT,),
    ),
    "a submodule's git dir in modules/ made unlistable": Attack(
        lambda _: _NEW_MODULE + " && chmod 311 .git/modules",
        lambda scene: scene.workspace,
        ("[sandbox] gave .git/modules back read and search permission", "[sandbox] moved .git/modules/lib ("),
        user=(("submodule", "update", "--init"),),
        marks=(NOT_ROOT,),
    ),
}


def attack(tmp_path: Path, outside: Path, name: str, *, sandbox: bool) -> tuple[Scene, str]:
    plan = ATTACKS[name]
    scene = _scene(tmp_path, outside, plan.package)
    script = plan.script(scene)
    done = sandboxed(scene, script, sandbox=sandbox, limit=plan.limit, git_dir_limit=plan.git_dir_limit)
    assert done.returncode == 0, done.stdout + done.stderr
    where = plan.where(scene)
    for args in plan.user if where.is_dir() else ():
        user_git(scene, *args, cwd=where)
    return scene, done.stderr


def _cases() -> list[object]:
    return [pytest.param(name, marks=plan.marks) for name, plan in ATTACKS.items()]


@pytest.mark.parametrize("name", _cases())
def test_the_users_git_runs_nothing_the_check_could_not_list(
    tmp_path: Path, outside: Path, name: str
) -> None:
    scene, said = attack(tmp_path, outside, name, sandbox=True)
    assert not scene.marker.exists(), said
    for words in ATTACKS[name].said:
        assert words in said


@pytest.mark.parametrize("name", ATTACKS)
def test_positive_control_unchecked_the_users_git_runs_it(tmp_path: Path, outside: Path, name: str) -> None:
    scene, _ = attack(tmp_path, outside, name, sandbox=False)
    assert scene.marker.exists()


# --- a workspace bigger than the bound: nothing of the user's moved -------------------------------


def test_what_the_check_could_not_list_before_the_command_is_read_only_for_it_and_kept(
    tmp_path: Path, outside: Path
) -> None:
    """Bound 20: the root, node_modules and its one package (40 files) are listed; the folder below
    is not, so the command may not write there, and nothing of the user's is moved afterwards."""
    scene = _scene(tmp_path, outside)
    package = scene.workspace / "node_modules" / "pkg"
    (package / "deep").mkdir(parents=True)
    (package / "deep" / "index.js").write_text("")
    for i in range(40):
        (package / f"f{i}.js").write_text("")
    done = sandboxed(
        scene,
        "echo more >> notes.txt && : > node_modules/pkg/new.js && "
        "{{ : > node_modules/pkg/deep/new.js || echo refused; }}",
        limit=20,
    )
    assert done.returncode == 0, done.stderr
    assert "Read-only file system" in done.stdout
    assert "refused" in done.stdout
    assert (package / "new.js").exists()
    assert not (package / "deep" / "new.js").exists()
    assert (package / "deep" / "index.js").exists()
    assert "[sandbox] moved" not in done.stderr
    assert "read-only for the command: node_modules/pkg/deep" in done.stderr
