"""Each row of the table in docs/git-in-the-sandbox.md — a path git acts on that a sandboxed
command could plant — as an attack, end to end. The command runs through `levelcode sandbox -- sh
-c …` in the workspace; then the user's own git, outside, with their HOME and ~/.gitconfig, runs
`git status`, `git rebase --continue`, `git commit` and `git switch`, and then the commands that
act on that row (`git push NAME` for a remote definition, `git worktree repair` for a worktree's
pointers, `git submodule update --init` for a submodule's git dir, …). Load-bearing direction: git
acts on nothing planted — the payload never runs (its marker never appears), no file outside is
written through a link — and what was planted is gone (refused, or moved away after the command).
Positive control: the same command with the sandbox confining nothing and moving nothing (the
test build of the CLI, tests/support/unchecked_levelcode.py) does plant it, and the same git
commands do act on it — so each row's test can fail. A last test reads the page's table and
checks that its rows and these attacks are the same, one to one."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.autopilot_runs import run_cli_output
from tests.support.git_layouts import Layout, layout, user_git

pytestmark = pytest.mark.sandbox

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "git-in-the-sandbox.md"
PROOFS = (
    ("status",),
    ("rebase", "--continue"),
    ("commit", "-q", "--allow-empty", "-m", "proof"),
    ("switch", "-q", "-c", "proof"),
)
FSMONITOR = "printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = \"sh {payload}\"\\n'"
HOOK = "printf '#!/bin/sh\\nsh {payload}\\n'"
EVIL_REPO = (  # a bare repository whose pre-receive hook is the payload, where no scan looks
    'E="${{XDG_CACHE_HOME:-{outside}}}/evil.git"; git init -q --bare "$E"; '
    + HOOK
    + ' > "$E/hooks/pre-receive"; chmod +x "$E/hooks/pre-receive"; '
)
EVIL_COMMON = "mkdir -p .evil; cp -r .git/objects .git/refs .evil/; " + FSMONITOR + " > .evil/config; "


def marker(scene: Layout) -> Path:
    return scene.outside / "marker"


def ran(scene: Layout) -> bool:
    return marker(scene).exists()


def _gitconfig(scene: Layout, text: str) -> None:
    with (scene.home / ".gitconfig").open("a") as config:
        config.write(text.format(ws=scene.workspace, payload=scene.outside / "payload.sh"))


def _git(scene: Layout, *args: str) -> None:
    user_git(scene.home, scene.workspace, *args)


def _commit(scene: Layout, path: str, text: str, message: str) -> None:
    (scene.workspace / path).write_text(text)
    _git(scene, "add", path)
    _git(scene, "commit", "-qm", message)


def _conflicting_branches(scene: Layout) -> None:
    """`side` changes f.txt one way and adds g.txt; `work` changes f.txt another way."""
    _git(scene, "switch", "-qc", "side")
    _commit(scene, "f.txt", "side\n", "side")
    _commit(scene, "g.txt", "g\n", "g")
    _git(scene, "switch", "-q", "work")
    _commit(scene, "f.txt", "work\n", "work")


def _linked_worktree_and_a_folder(scene: Layout) -> None:
    _git(scene, "worktree", "add", "-q", str(scene.outside / "wt"), "-b", "wt")
    (scene.outside / "victim").mkdir()  # a folder of the user's, e.g. their home


def _filter_driver(scene: Layout) -> None:
    """The user's own filter driver for *.fmt files (a stand-in for git-lfs), and a file of theirs
    outside the workspace they are editing."""
    _gitconfig(scene, '[filter "fmt"]\n\tclean = sh {payload}\n')
    (scene.workspace.parent / "other" / "o.txt").write_text("edited by the user\n")


def _tracked_program(scene: Layout) -> None:
    tools = scene.workspace / "tools"
    tools.mkdir()
    (tools / "fmt-filter").write_text("#!/bin/sh\ncat\n")
    (tools / "fmt-filter").chmod(0o755)
    _gitconfig(scene, '[filter "fmt"]\n\tclean = ./tools/fmt-filter\n')
    (scene.workspace / ".gitattributes").write_text("*.txt filter=fmt\n")
    _git(scene, "add", ".")
    _git(scene, "commit", "-qm", "tools")


def _has_object(scene: Layout, oid: str) -> bool:
    """Whether the user's git finds an object: one only in the planted store, through alternates."""
    return user_git(scene.home, scene.workspace, "cat-file", "-e", oid, check=False).returncode == 0


def _linked_bashrc(scene: Layout) -> bool:
    return (scene.home / ".bashrc").read_text() != "# the user's own\n" or (scene.home / ".profile").exists()


@dataclass(frozen=True)
class Row:
    plant: str  # run in the workspace ({payload}, {outside} filled in)
    acts: tuple[tuple[str, ...], ...] = ()  # the user's git commands that act on it, after PROOFS
    gone: tuple[str, ...] = ()  # paths in the workspace that must not be there afterwards
    prepare: Callable[[Layout], object] = lambda _scene: None
    acted: Callable[[Layout], bool] = ran
    layout: str = "plain"


ROWS: dict[str, Row] = {
    "config": Row(FSMONITOR + " >> .git/config"),
    "config.worktree": Row(
        FSMONITOR + " > .git/config.worktree",
        gone=(".git/config.worktree",),
        prepare=lambda scene: _git(scene, "config", "extensions.worktreeConfig", "true"),
    ),
    "hooks/": Row(
        HOOK + " > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; "
        "cp .git/hooks/pre-commit .git/hooks/post-checkout",
        gone=(".git/hooks/pre-commit", ".git/hooks/post-checkout"),
    ),
    "commondir": Row(EVIL_COMMON + 'echo "$PWD/.evil" > .git/commondir', gone=(".git/commondir",)),
    "worktrees/NAME/gitdir": Row(
        "echo {outside}/victim/.git > .git/worktrees/wt/gitdir",
        acts=(("worktree", "repair"),),
        prepare=_linked_worktree_and_a_folder,
        acted=lambda scene: (scene.outside / "victim" / ".git").exists(),
    ),
    "worktrees/NAME/": Row(
        EVIL_COMMON + "mkdir -p .git/worktrees/evil; cp .git/HEAD .git/worktrees/evil/; "
        'echo "$PWD/.evil" > .git/worktrees/evil/commondir; '
        "echo {outside}/victim/.git > .git/worktrees/evil/gitdir",
        acts=(("worktree", "repair"), ("-C", "{outside}/victim", "status")),
        gone=(".git/worktrees/evil",),
        prepare=_linked_worktree_and_a_folder,
    ),
    "modules/NAME/": Row(
        "git init -q --bare .git/modules/lib; git config --file .git/modules/lib/config core.bare false; "
        "git --git-dir=.git/modules/lib --work-tree=. commit -q --allow-empty -m l; "
        + HOOK
        + " > .git/modules/lib/hooks/post-checkout; chmod +x .git/modules/lib/hooks/post-checkout; "
        "printf '[submodule \"lib\"]\\n\\tpath = lib\\n\\turl = ./nowhere\\n' > .gitmodules; "
        "git update-index --add --cacheinfo 160000,$(git --git-dir=.git/modules/lib rev-parse HEAD),lib; "
        "git add .gitmodules",
        acts=(("submodule", "update", "--init"),),
        gone=(".git/modules/lib",),
    ),
    "modules/NAME/config": Row(FSMONITOR + " >> .git/modules/lib/config", layout="with submodule"),
    "info/attributes": Row(
        "echo '* filter=fmt' >> $(git rev-parse --git-common-dir)/info/attributes",
        acts=(("-C", "{outside}/mono", "status"),),
        gone=("../.git/info/attributes",),
        prepare=_filter_driver,
        layout="package of a repository",
    ),
    "objects/info/alternates, objects/info/http-alternates": Row(
        "mkdir -p .evil-objects; echo evil | GIT_OBJECT_DIRECTORY=$PWD/.evil-objects "
        "git hash-object -w --stdin > oid.txt; echo $PWD/.evil-objects > .git/objects/info/alternates; "
        "echo http://127.0.0.1:9/objects > .git/objects/info/http-alternates",
        gone=(".git/objects/info/alternates", ".git/objects/info/http-alternates"),
        acted=lambda scene: _has_object(scene, (scene.workspace / "oid.txt").read_text().strip()),
    ),
    "remotes/": Row(
        EVIL_REPO + 'mkdir -p .git/remotes; printf "URL: $E\\n" > .git/remotes/up',
        acts=(("push", "-q", "up", "HEAD:refs/heads/x"),),
        gone=(".git/remotes",),
    ),
    "branches/": Row(
        EVIL_REPO + 'echo "$E" > .git/branches/up',
        acts=(("push", "-q", "up", "HEAD:refs/heads/x"),),
        gone=(".git/branches/up",),
    ),
    "rebase-merge/git-rebase-todo": Row(
        "git switch -q side; git rebase -q work; echo resolved > f.txt; git add f.txt; "
        "echo 'exec sh {payload}' >> .git/rebase-merge/git-rebase-todo",
        gone=(".git/rebase-merge/git-rebase-todo",),
        prepare=_conflicting_branches,
    ),
    "rebase-merge/strategy": Row(
        "git switch -q side; git rebase -q work; echo resolved > f.txt; git add f.txt; "
        "mkdir git-merge-..; " + HOOK + " > x; chmod +x x; echo ../../x > .git/rebase-merge/strategy",
        gone=(".git/rebase-merge/strategy",),
        prepare=_conflicting_branches,
    ),
    "sequencer/opts": Row(
        "git cherry-pick side~1 side; echo resolved > f.txt; git add f.txt; "
        "mkdir git-merge-..; " + HOOK + " > x; chmod +x x; "
        "printf '[options]\\n\\tstrategy = ../../x\\n' > .git/sequencer/opts",
        acts=(("cherry-pick", "--continue"),),
        gone=(".git/sequencer/opts",),
        prepare=_conflicting_branches,
    ),
    "a link or special file in a git dir": Row(
        "rm -f .git/COMMIT_EDITMSG .git/logs/HEAD; ln -s $HOME/.bashrc .git/COMMIT_EDITMSG; "
        "ln -s $HOME/.profile .git/logs/HEAD; mkfifo .git/MERGE_MODE",
        gone=(".git/MERGE_MODE",),
        prepare=lambda scene: (scene.home / ".bashrc").write_text("# the user's own\n"),
        acted=_linked_bashrc,
    ),
    "a new .git": Row(
        "git init -q sub; git -C sub config core.fsmonitor 'sh {payload}'",
        acts=(("-C", "sub", "status"),),
        gone=("sub/.git",),
    ),
    "a folder made a git dir": Row(
        "mkdir -p x/objects x/refs; echo 'ref: refs/heads/main' > x/HEAD; "
        "printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = ..\\n"
        '\\tfsmonitor = "sh {payload}"\\n\' > x/config',
        acts=(("-C", "x", "status"),),
        gone=("x/HEAD",),
    ),
    "an include.path or includeIf target": Row(
        FSMONITOR + " > .gitconfig.local",
        gone=(".gitconfig.local",),
        prepare=lambda scene: _gitconfig(scene, "[include]\n\tpath = {ws}/.gitconfig.local\n"),
    ),
    "the core.hooksPath folder": Row(
        "mkdir -p .githooks; " + HOOK + " > .githooks/pre-commit; chmod +x .githooks/pre-commit",
        gone=(".githooks",),
        prepare=lambda scene: _gitconfig(scene, "[core]\n\thooksPath = .githooks\n"),
    ),
    "a program your git config runs": Row(
        HOOK + " > tools/fmt-filter; echo more >> f.txt",
        acts=(("diff",),),
        prepare=_tracked_program,
    ),
}


@pytest.fixture
def scene(request: pytest.FixtureRequest) -> Iterator[Layout]:
    with layout(ROWS[request.param].layout) as built:
        (built.outside / "payload.sh").write_text(f"touch {marker(built)}\n")
        yield built


def _filled(scene: Layout, text: str) -> str:
    return text.format(payload=scene.outside / "payload.sh", outside=scene.outside)


def plant(scene: Layout, levelcode_home: Path, command: str, *, protected: bool) -> str:
    """`levelcode sandbox -- sh -c COMMAND` in the workspace; unprotected: the test build that
    confines nothing and moves nothing."""
    args = ["sandbox", "-C", str(scene.workspace), "--", "sh", "-c", _filled(scene, command)]
    return run_cli_output(
        args, levelcode_home, sandbox=protected, HOME=str(scene.home), GIT_CONFIG_NOSYSTEM="1"
    )


def attack(scene: Layout, levelcode_home: Path, name: str, *, protected: bool) -> str:
    row = ROWS[name]
    row.prepare(scene)
    said = plant(scene, levelcode_home, row.plant, protected=protected)
    for args in (*PROOFS, *row.acts):
        user_git(scene.home, scene.workspace, *(_filled(scene, a) for a in args), check=False)
    return said


@pytest.mark.parametrize("scene", ROWS, indirect=True)
def test_the_users_git_acts_on_nothing_planted_in_that_row(
    scene: Layout, isolated_home: Path, request: pytest.FixtureRequest
) -> None:
    name = request.node.callspec.params["scene"]
    said = attack(scene, isolated_home, name, protected=True)
    assert not ROWS[name].acted(scene), said
    for path in ROWS[name].gone:
        assert not os.path.lexists(scene.workspace / path), said
    assert (
        "Read-only file system" in said or "Device or resource busy" in said or "[sandbox] moved " in said
    ), said


@pytest.mark.parametrize("scene", ROWS, indirect=True)
def test_positive_control_unprotected_the_users_git_acts_on_it(
    scene: Layout, isolated_home: Path, request: pytest.FixtureRequest
) -> None:
    name = request.node.callspec.params["scene"]
    said = attack(scene, isolated_home, name, protected=False)
    assert ROWS[name].acted(scene), said


def test_a_stopped_rebase_whose_todo_was_moved_can_be_aborted(isolated_home: Path) -> None:
    """What the moved todo's line tells the user to do works: the branch is back where it was."""
    with layout("plain") as scene:
        (scene.outside / "payload.sh").write_text(f"touch {marker(scene)}\n")
        said = attack(scene, isolated_home, "rebase-merge/git-rebase-todo", protected=True)
        assert "`git rebase --abort` ends it" in said
        user_git(scene.home, scene.workspace, "rebase", "--abort")
        assert user_git(scene.home, scene.workspace, "log", "-1", "--format=%s", "side").stdout == "g\n"
        assert not ran(scene)


def test_a_git_dir_and_the_folders_above_its_kept_files_cannot_be_renamed_away(isolated_home: Path) -> None:
    """A mount point cannot be renamed: nothing can swap `.git` or a worktree's git dir for one of
    its own, not even while a long-running command runs between two checks."""
    with layout("plain") as scene:
        _linked_worktree_and_a_folder(scene)
        swaps = "mv .git .git.old; mv .git/worktrees/wt .git/worktrees/wt.old; mv .git/hooks .git/hooks.old"
        said = plant(scene, isolated_home, swaps, protected=True)
        assert said.count("Device or resource busy") == 3, said
        assert {p.name for p in (scene.workspace / ".git").iterdir()} >= {"worktrees", "hooks"}
        assert (scene.workspace / ".git" / "worktrees" / "wt").is_dir()
        plant(scene, isolated_home, swaps, protected=False)  # positive control: unconfined, they move
        assert (scene.workspace / ".git.old").is_dir()


def test_a_gitmodules_file_makes_git_run_nothing_even_unprotected(isolated_home: Path) -> None:
    """Left writable on evidence: git checks `.gitmodules` out, and refuses what in it could run a
    program (an `update = !command`, a URL that is an option)."""
    with layout("plain") as scene:
        (scene.outside / "payload.sh").write_text(f"touch {marker(scene)}\n")
        gitmodules = (
            'printf \'[submodule "lib"]\\n\\tpath = lib\\n\\turl = ./lib\\n\\tupdate = !sh {payload}\\n'
            '[submodule "x"]\\n\\tpath = x\\n\\turl = --upload-pack=sh {payload}\\n\' > .gitmodules; '
            "git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),lib; git add .gitmodules"
        )
        plant(scene, isolated_home, gitmodules, protected=False)
        for args in (*PROOFS, ("submodule", "update"), ("submodule", "update", "--init"), ("pull",)):
            user_git(scene.home, scene.workspace, *args, check=False)
        assert not ran(scene)


def table_rows(page: Path) -> list[str]:
    """The first cell of each row of the page's table of protected paths, without its backticks."""
    text = page.read_text()
    table = text[text.index("<!-- rows -->") : text.index("<!-- /rows -->")]
    lines = [line for line in table.splitlines() if line.startswith("|")][2:]  # past the head
    return [re.sub(r"`", "", line.split("|")[1]).strip() for line in lines]


def test_the_docs_table_and_these_attacks_are_one_to_one() -> None:
    assert table_rows(PAGE) == list(ROWS)
