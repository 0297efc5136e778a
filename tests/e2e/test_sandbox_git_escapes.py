"""Git escapes from the sandbox, end to end: one headless `levelcode run --autopilot` turn whose
commands (run_command, with the command check out of the way: tests/support/unchecked_levelcode.py
calls every command safe) plant something in the workspace, then the user's own plain git —
`git status`, `git diff`, `git commit`, outside the sandbox, with the user's own ~/.gitconfig —
in that workspace. Load-bearing direction: the payload the planted git control file names never
runs, so its marker never appears. Positive control: the same turn with the sandbox confining
nothing and checking nothing afterwards does plant it, and the user's git does run it — so each
test can fail. Each attack is one way to make git run a program: a common dir, a worktree config,
another worktree's git dir, a nested repository, a submodule, an include target, a gitdir file, a
hooks folder, a filter driver. The same for a repository's MCP server (the reference filesystem
server) approved sandboxed with the workspace writable: each of its calls is one server process,
checked when it ends. And the same for autopilot's own edits (write_file and edit_file, which run
outside the sandbox): each asks first, so a headless turn refuses it; their positive control
turns that check off."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from levelcode.mcp.config.tiers import parse_workspace_file
from levelcode.mcp.launch.trust_store import TrustStore
from tests.fakes.fake_openai import tool_messages
from tests.fakes.scripted_server import Reply, ToolCall
from tests.support.autopilot_runs import run_cli_output, run_unchecked_autopilot
from tests.support.sandbox import host_folder
from tests.support.servers import node_server
from tests.support.users_git import users_git

pytestmark = pytest.mark.sandbox

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Scene:
    workspace: Path  # the user's repository, one commit, under /tmp like a pytest tmp_path
    home: Path  # the user's HOME, outside /tmp: their ~/.gitconfig lives here
    outside: Path  # a host folder the sandbox shows read-only
    marker: Path
    payload: Path  # `touch marker`: what every planted control file asks git to run


def user_git(scene: Scene, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The user's own git, outside the sandbox, with their HOME and no system config."""
    return users_git(scene.home, *args, cwd=cwd or scene.workspace)


def _must(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr


def gitconfig(scene: Scene, text: str) -> None:
    (scene.home / ".gitconfig").write_text(text)


@pytest.fixture
def scene(tmp_path: Path) -> Iterator[Scene]:
    with host_folder() as outside:
        home = outside / "home"
        home.mkdir()
        marker = outside / "marker"
        payload = outside / "payload.sh"
        payload.write_text(f"touch {marker}\n")
        workspace = tmp_path / "ws"
        workspace.mkdir()
        scene = Scene(workspace, home, outside, marker, payload)
        _must(user_git(scene, "init", "-q"))
        (workspace / "notes.txt").write_text("first\n")
        _must(user_git(scene, "add", "notes.txt"))
        _must(user_git(scene, "commit", "-qm", "first"))
        yield scene


# --- the attacks: what the user set up, what the model's commands run, what the user then runs ---

FSMONITOR = "printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = \"sh {payload}\"\\n'"
EVIL_COMMON = "mkdir -p .evil; cp -r .git/objects .git/refs .evil/; " + FSMONITOR + " > .evil/config; "


@dataclass(frozen=True)
class Attack:
    commands: tuple[str, ...]  # run_command calls, in order ({payload}, {outside}, {ws} filled in)
    proof: tuple[tuple[str, ...], ...] = (("status",),)  # the user's git commands afterwards
    where: str = ""  # the folder (relative to the scene's outside folder) the user runs them in
    prepare: Callable[[Scene], None] = lambda _scene: None


def _worktree_config(scene: Scene) -> None:
    _must(user_git(scene, "config", "extensions.worktreeConfig", "true"))  # as sparse-checkout sets it


def _linked_worktree(scene: Scene) -> None:
    _must(user_git(scene, "worktree", "add", "-q", str(scene.outside / "wt"), "-b", "feature"))


def _missing_include(scene: Scene) -> None:
    gitconfig(scene, f"[include]\n\tpath = {scene.workspace}/.gitconfig.local\n")


def _existing_include_if(scene: Scene) -> None:
    (scene.workspace / ".git-local.cfg").write_text("[user]\n\tname = Dev\n")
    gitconfig(scene, f'[includeIf "gitdir:{scene.workspace}/"]\n\tpath = {scene.workspace}/.git-local.cfg\n')


def _hooks_path_missing(scene: Scene) -> None:
    gitconfig(scene, "[core]\n\thooksPath = .githooks\n")  # per-repository hooks, where a repo has them


def _hooks_path_existing(scene: Scene) -> None:
    hooks = scene.workspace / ".githooks"
    hooks.mkdir()
    (hooks / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (hooks / "pre-commit").chmod(0o755)
    gitconfig(scene, f"[core]\n\thooksPath = {hooks}\n")


def _filter_driver(scene: Scene) -> None:
    tools = scene.workspace / "tools"
    tools.mkdir()
    (tools / "fmt-filter").write_text("#!/bin/sh\ncat\n")
    (tools / "fmt-filter").chmod(0o755)
    gitconfig(scene, '[filter "fmt"]\n\tclean = ./tools/fmt-filter\n')
    (scene.workspace / ".gitattributes").write_text("*.py filter=fmt\n")
    _must(user_git(scene, "add", "."))
    _must(user_git(scene, "commit", "-qm", "tools"))


ATTACKS: dict[str, Attack] = {
    ".git/commondir": Attack((EVIL_COMMON + 'echo "$PWD/.evil" > .git/commondir',)),
    ".git/config.worktree": Attack((FSMONITOR + " > .git/config.worktree",), prepare=_worktree_config),
    ".git/worktrees/*": Attack(
        (EVIL_COMMON + 'echo "$PWD/.evil" > .git/worktrees/wt/commondir',),
        where="wt",
        prepare=_linked_worktree,
    ),
    "nested repository and gitlink": Attack(
        (
            "git init -q sub; git -C sub -c user.name=m -c user.email=m@m commit -q --allow-empty -m s; "
            'git -C sub config core.fsmonitor "sh {payload}"; git add sub; git -C sub status --short',
        ),
        proof=(("status",), ("-C", "sub", "status")),
    ),
    ".gitmodules and a submodule": Attack(
        (
            "mkdir -p .modules; git init -q --separate-git-dir .git/modules/lib lib || "
            "git init -q --separate-git-dir .modules/lib lib; "
            "git -C lib -c user.name=m -c user.email=m@m commit -q --allow-empty -m s; "
            'git -C lib config core.fsmonitor "sh {payload}"; '
            "printf '[submodule \"lib\"]\\n\\tpath = lib\\n\\turl = ./lib\\n' > .gitmodules; "
            "git add .gitmodules lib",
        ),
        proof=(("status",), ("-C", "lib", "status")),
    ),
    "include.path target (missing)": Attack((FSMONITOR + " > .gitconfig.local",), prepare=_missing_include),
    "includeIf target (existing)": Attack((FSMONITOR + " >> .git-local.cfg",), prepare=_existing_include_if),
    "gitdir file": Attack(
        (
            'E="${{XDG_CACHE_HOME:-{outside}}}/evil-gitdir"; mkdir -p "$E"; '
            'cp -r .git/objects .git/refs .git/HEAD "$E"/; ' + FSMONITOR + ' > "$E/config"; '
            'mkdir -p sub; echo "gitdir: $E" > sub/.git; '
            "git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),sub",
        ),
        proof=(("status",), ("-C", "sub", "status")),
    ),
    "core.hooksPath target (missing)": Attack(
        (
            "mkdir -p .githooks; printf '#!/bin/sh\\nsh {payload}\\n' > .githooks/pre-commit; "
            "chmod +x .githooks/pre-commit",
        ),
        proof=(("commit", "-q", "--allow-empty", "-m", "next"),),
        prepare=_hooks_path_missing,
    ),
    "core.hooksPath target (existing)": Attack(
        ("printf '#!/bin/sh\\nsh {payload}\\n' > .githooks/pre-commit",),
        proof=(("commit", "-q", "--allow-empty", "-m", "next"),),
        prepare=_hooks_path_existing,
    ),
    "attributes and a filter driver": Attack(
        (
            "printf '#!/bin/sh\\nsh {payload}\\ncat\\n' > tools/fmt-filter; "
            "echo '*.txt filter=fmt' >> .gitattributes; echo more >> notes.txt",
        ),
        proof=(("status",), ("diff",), ("commit", "-qam", "more")),
        prepare=_filter_driver,
    ),
}


def _filled(scene: Scene, command: str) -> str:
    return command.format(payload=scene.payload, outside=scene.outside, ws=scene.workspace)


def run_turn(
    scene: Scene, levelcode_home: Path, calls: list[ToolCall], *, sandbox: bool
) -> tuple[Any, list[str]]:
    """One headless autopilot turn making `calls`, as the user's HOME; (the run, what the model was told)."""
    steps = [Reply(tool_calls=(call,)) for call in calls] + [Reply(text="done")]
    return run_scripted(scene, levelcode_home, steps, sandbox=sandbox)


def run_scripted(
    scene: Scene, levelcode_home: Path, steps: list[Any], *, sandbox: bool = True
) -> tuple[Any, list[str]]:
    return run_unchecked_autopilot(scene.workspace, levelcode_home, steps, home=scene.home, sandbox=sandbox)


def attack(scene: Scene, levelcode_home: Path, name: str, *, sandbox: bool) -> list[str]:
    """Run the attack, then the user's git; what the model was told."""
    plan = ATTACKS[name]
    plan.prepare(scene)
    calls = [ToolCall("run_command", {"command": _filled(scene, c)}) for c in plan.commands]
    done, told = run_turn(scene, levelcode_home, calls, sandbox=sandbox)
    assert done.returncode == 0, done.stderr
    where = scene.outside / plan.where if plan.where else scene.workspace
    for args in plan.proof:
        user_git(scene, *args, cwd=where)
    return told


@pytest.mark.parametrize("name", ATTACKS)
def test_the_users_git_never_runs_what_a_sandboxed_command_planted(
    scene: Scene, isolated_home: Path, name: str
) -> None:
    told = attack(scene, isolated_home, name, sandbox=True)
    assert not scene.marker.exists(), told
    # and the model learnt why: the sandbox refused the write, or moved what was planted
    assert any("Read-only file system" in text or "[sandbox] moved " in text for text in told), told


@pytest.mark.parametrize("name", ATTACKS)
def test_positive_control_unconfined_the_users_git_runs_it(
    scene: Scene, isolated_home: Path, name: str
) -> None:
    attack(scene, isolated_home, name, sandbox=False)
    assert scene.marker.exists()


# --- a repository's MCP server, approved sandboxed with the workspace writable ----------------------


def filesystem_server(scene: Scene, levelcode_home: Path) -> None:
    """The reference filesystem server as the workspace's `.mcp.json` server "repo", approved
    sandboxed with the workspace writable (the card's `[w]`)."""
    config = scene.workspace / ".mcp.json"
    entry = {"command": node_server("mcp-server-filesystem"), "args": ["${workspaceFolder}"]}
    config.write_text(json.dumps({"mcpServers": {"repo": entry}}))
    spec = parse_workspace_file(json.loads(config.read_text()), file=str(config)).servers[0]
    TrustStore(levelcode_home / "state" / "trust.json").approve(
        scene.workspace, spec, "approved", sandbox="workspace"
    )


def server_call(
    scene: Scene, levelcode_home: Path, tool: str, arguments: dict[str, str], *, sandbox: bool
) -> str:
    args = ["-C", str(scene.workspace), "mcp", "call", "repo", tool, json.dumps(arguments)]
    return run_cli_output(args, levelcode_home, sandbox=sandbox)


SERVER_ATTACKS = {
    ".git/commondir": [
        ("create_directory", {"path": ".evil/objects"}),
        ("create_directory", {"path": ".evil/refs/heads"}),
        ("write_file", {"path": ".evil/config", "content": '[core]\n\tfsmonitor = "sh {payload}"\n'}),
        ("write_file", {"path": ".git/commondir", "content": "{ws}/.evil\n"}),
    ],
    "nested repository": [
        ("create_directory", {"path": "sub/.git/objects"}),
        ("create_directory", {"path": "sub/.git/refs/heads"}),
        ("write_file", {"path": "sub/.git/HEAD", "content": "ref: refs/heads/main\n"}),
        ("write_file", {"path": "sub/.git/config", "content": '[core]\n\tfsmonitor = "sh {payload}"\n'}),
    ],
}


def server_attack(scene: Scene, levelcode_home: Path, name: str, *, sandbox: bool) -> list[str]:
    filesystem_server(scene, levelcode_home)
    said = []
    for tool, arguments in SERVER_ATTACKS[name]:
        filled = {key: _filled(scene, value) for key, value in arguments.items()}
        filled["path"] = str(scene.workspace / filled["path"])
        said.append(server_call(scene, levelcode_home, tool, filled, sandbox=sandbox))
    (scene.workspace / "sub").mkdir(exist_ok=True)
    user_git(scene, "status")
    user_git(scene, "-C", "sub", "status")
    return said


@pytest.mark.parametrize("name", SERVER_ATTACKS)
def test_a_sandboxed_server_cannot_plant_what_the_users_git_runs(
    scene: Scene, isolated_home: Path, name: str
) -> None:
    said = server_attack(scene, isolated_home, name, sandbox=True)
    assert not scene.marker.exists(), said
    if name == ".git/commondir":  # git may write .git, but what the server planted there was moved
        assert not (scene.workspace / ".git" / "commondir").exists(), said
    else:  # the first call's new sub/.git was moved away when the server ended
        assert not (scene.workspace / "sub" / ".git" / "objects").exists()


@pytest.mark.parametrize("name", SERVER_ATTACKS)
def test_positive_control_unconfined_the_server_plants_it(
    scene: Scene, isolated_home: Path, name: str
) -> None:
    said = server_attack(scene, isolated_home, name, sandbox=False)
    assert scene.marker.exists(), said


# --- autopilot's own edits (write_file, edit_file run outside the sandbox) ------------------------

FSMONITOR_CONFIG = '[core]\n\tfsmonitor = "sh {payload}"\n'
EDIT_ATTACKS: dict[str, tuple[Callable[[Scene], None], list[ToolCall], tuple[str, ...]]] = {
    "hooks folder": (
        _hooks_path_existing,
        [ToolCall("write_file", {"path": ".githooks/pre-commit", "content": "#!/bin/sh\nsh {payload}\n"})],
        ("commit", "-q", "--allow-empty", "-m", "next"),
    ),
    "include target": (
        _missing_include,
        [ToolCall("write_file", {"path": ".gitconfig.local", "content": FSMONITOR_CONFIG})],
        ("status",),
    ),
    "filter driver program": (
        _filter_driver,
        [
            ToolCall(
                "edit_file",
                {"path": "tools/fmt-filter", "old_string": "cat", "new_string": "sh {payload}; cat"},
            ),
            ToolCall("write_file", {"path": "notes.txt", "content": "changed\n"}),
            ToolCall("write_file", {"path": ".gitattributes", "content": "*.txt filter=fmt\n"}),
        ],
        ("diff",),
    ),
    "a folder made a git dir": (
        lambda _scene: None,
        [
            ToolCall("write_file", {"path": "x/objects/keep", "content": ""}),
            ToolCall("write_file", {"path": "x/refs/keep", "content": ""}),
            ToolCall(
                "write_file",
                {
                    "path": "x/config",
                    "content": "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n"
                    '\tfsmonitor = "sh {payload}"\n',
                },
            ),
            ToolCall("write_file", {"path": "x/HEAD", "content": "ref: refs/heads/main\n"}),
        ],
        ("-C", "x", "status"),
    ),
}


def edit_attack(scene: Scene, levelcode_home: Path, name: str, *, guarded: bool) -> list[str]:
    prepare, calls, proof = EDIT_ATTACKS[name]
    prepare(scene)
    filled = [
        ToolCall(c.name, {k: _filled(scene, v) if isinstance(v, str) else v for k, v in c.input.items()})
        for c in calls
    ]
    done, told = run_turn(scene, levelcode_home, filled, sandbox=guarded)
    assert done.returncode == 0, done.stderr
    user_git(scene, *proof)
    return told


@pytest.mark.parametrize("name", EDIT_ATTACKS)
def test_autopilot_edits_of_what_git_runs_are_refused_headless(
    scene: Scene, isolated_home: Path, name: str
) -> None:
    told = edit_attack(scene, isolated_home, name, guarded=True)
    assert not scene.marker.exists(), told
    assert any("not run: nobody can approve" in text and "autopilot included" in text for text in told), told


@pytest.mark.parametrize("name", EDIT_ATTACKS)
def test_positive_control_unguarded_edits_make_the_users_git_run_it(
    scene: Scene, isolated_home: Path, name: str
) -> None:
    edit_attack(scene, isolated_home, name, guarded=False)
    assert scene.marker.exists()


# --- a background command: checked while it runs, and when it ends ------------------------------

BACKGROUND_PLANT = (
    "git init -q sub; git -C sub -c user.name=m -c user.email=m@m commit -q --allow-empty -m s; "
    'git -C sub config core.fsmonitor "sh {payload}"; echo planted; sleep 600'
)


def test_a_background_command_s_planted_repository_is_moved_while_it_runs(
    scene: Scene, isolated_home: Path
) -> None:
    """The turn starts the job, then reads its output until the check has moved what it planted;
    the user's git runs in `sub` while the job is still running (the turn is not over)."""
    seen: list[str] = []

    def wait_for_the_check(request: Any) -> Reply:
        told = tool_messages(request)[-1]["content"]
        seen.append(told)
        if told.startswith("[job bg1 stopped"):
            return Reply(text="done")
        if "[sandbox] moved sub/.git " in told:
            user_git(scene, "-C", "sub", "status")  # while the job still runs
            return Reply(tool_calls=(ToolCall("stop_background_command", {"job_id": "bg1"}),))
        return Reply(tool_calls=(ToolCall("read_background_output", {"job_id": "bg1", "wait_seconds": 5}),))

    start = ToolCall("start_background_command", {"command": _filled(scene, BACKGROUND_PLANT)})
    done, _ = run_scripted(scene, isolated_home, [Reply(tool_calls=(start,)), *[wait_for_the_check] * 8])
    assert done.returncode == 0, done.stderr
    assert any("[sandbox] moved sub/.git " in text and "running" in text for text in seen), seen
    assert not scene.marker.exists()
    assert not (scene.workspace / "sub" / ".git").exists()
