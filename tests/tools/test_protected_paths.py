"""Writes under a workspace's `.git/` or `.levelcode/`, and to every other file git acts on, always
ask, autopilot included.

Load-bearing direction: a write_file or edit_file that runs without a person's yes is the failure
that matters when its resolved path lies under `.git/` (any depth, `.git` itself included) or
`.levelcode/` of the workspace or an added directory, or is a file git acts on: `.gitmodules`, a
HEAD (beside objects/ and refs/ it makes a folder a git dir), anything inside a folder that is a
git dir (a bare repository), or what the user's git config names there — an include target, the
hooks folder and what is in it, a filter driver's program. Such a card is flagged, never offers
"always allow", and is not covered by an earlier "always allow file edits". MUST_PASS keeps
autopilot useful: the workspace's ordinary files, `.gitignore`, `.gitattributes` (it only picks
among drivers the config defines), `.github/`, and a file merely named like a git one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.agent.toolbox import Toolbox
from levelcode.core.approvals import HeadlessApprover
from levelcode.core.messages import ToolResult, ToolUse
from levelcode.tools.base import ToolContext
from levelcode.tools.file_edit import EDIT_FILE, WRITE_FILE
from levelcode.tools.protected_paths import protected_folder
from tests.support.approvers import ScriptedApprover

MUST_ASK = [
    ".git/config",
    ".git/hooks/pre-commit",
    ".git/info/attributes",
    ".git",
    "./.git/../.git/config",
    "sub/.git/config",
    "vendor/lib/.git/hooks/post-checkout",
    ".GIT/config",
    ".levelcode/mcp.json",
    ".levelcode/settings.json",
    "pkg/.levelcode/mcp.json",
    "gitlink/config",  # a symlink to .git: the resolved path is what counts
    "EXTRA/.git/config",  # an added directory's .git too
    "EXTRA/.levelcode/mcp.json",
    ".gitmodules",
    "lib/.gitmodules",
    "sub/HEAD",  # with objects/ and refs/ beside it, sub/ would be a git dir
    "fixtures/lib.git/config",  # inside a bare repository
    "fixtures/lib.git/hooks/post-update",
    ".gitconfig.local",  # the user's ~/.gitconfig includes it (missing yet)
    ".githooks/pre-commit",  # core.hooksPath
    "tools/clean-filter",  # a filter driver's program
    "EXTRA/.gitmodules",
]
GIT_TARGETS = {
    ".gitmodules",
    "lib/.gitmodules",
    "sub/HEAD",
    "fixtures/lib.git/config",
    "fixtures/lib.git/hooks/post-update",
    ".gitconfig.local",
    ".githooks/pre-commit",
    "tools/clean-filter",
    "EXTRA/.gitmodules",
}
MUST_PASS = [
    "src/app.py",
    ".gitignore",
    ".gitattributes",
    "docs/gitmodules.md",
    "docs/HEAD.md",
    "tools/other-script",
    ".githooks-notes.txt",
    "fixtures/not-a-repo/config",
    ".github/workflows/ci.yml",
    "docs/.git-notes.md",
    "git/config",
    ".levelcoderc",
    "levelcode/settings.json",
    "EXTRA/notes.txt",
]


@pytest.fixture
def roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    workspace, extra = tmp_path / "ws", tmp_path / "extra"
    for root in (workspace, extra):
        (root / ".git" / "hooks").mkdir(parents=True)
        (root / ".git" / "config").write_text("[core]\n")
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("x = 1\n")
    (workspace / "gitlink").symlink_to(workspace / ".git")
    bare = workspace / "fixtures" / "lib.git"
    for folder in ("objects", "refs", "hooks"):
        (bare / folder).mkdir(parents=True)
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    (workspace / "fixtures" / "not-a-repo").mkdir()
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        f"[include]\n\tpath = {workspace}/.gitconfig.local\n[core]\n\thooksPath = .githooks\n"
        '[filter "clean"]\n\tclean = ./tools/clean-filter\n'
    )
    monkeypatch.setenv("HOME", str(home))
    return workspace, extra


def _path(raw: str, roots: tuple[Path, Path]) -> str:
    return str(roots[1] / raw.removeprefix("EXTRA/")) if raw.startswith("EXTRA/") else raw


def _ctx(roots: tuple[Path, Path], *, autopilot: bool) -> ToolContext:
    return ToolContext(workspace=roots[0], extra_roots=(roots[1],), autopilot=autopilot)


@pytest.mark.parametrize("autopilot", [True, False])
@pytest.mark.parametrize("raw", MUST_ASK)
def test_a_write_under_a_protected_folder_always_asks_flagged(
    roots: tuple[Path, Path], raw: str, autopilot: bool
) -> None:
    request = WRITE_FILE.approval(
        _ctx(roots, autopilot=autopilot), {"path": _path(raw, roots), "content": "x"}
    )
    assert request is not None
    assert request.warning is not None
    assert "autopilot included" in request.warning
    reasons = ("hooks run code", "configuration for LevelCode") if raw not in GIT_TARGETS else ("git",)
    assert any(reason in request.warning for reason in reasons), request.warning
    assert request.allow_always is False


@pytest.mark.parametrize("raw", MUST_ASK)
def test_an_edit_under_a_protected_folder_always_asks_flagged(roots: tuple[Path, Path], raw: str) -> None:
    args = {"path": _path(raw, roots), "old_string": "[core]", "new_string": "[core]\n\tfsmonitor = x"}
    request = EDIT_FILE.approval(_ctx(roots, autopilot=True), args)
    assert request is not None
    assert request.warning is not None
    assert request.allow_always is False


@pytest.mark.parametrize("raw", MUST_PASS)
def test_ordinary_files_run_on_autopilot_and_ask_unflagged_otherwise(
    roots: tuple[Path, Path], raw: str
) -> None:
    args = {"path": _path(raw, roots), "content": "x"}
    assert WRITE_FILE.approval(_ctx(roots, autopilot=True), args) is None
    request = WRITE_FILE.approval(_ctx(roots, autopilot=False), args)
    assert request is not None
    assert request.warning is None
    assert request.allow_always is True


def test_the_folder_names_match_whatever_their_case() -> None:
    assert protected_folder(("a", ".Git", "config")) == (".Git", ".git/config and hooks run code")
    assert protected_folder(("a", "b.git", "config")) is None


async def _run(toolbox: Toolbox, use: ToolUse) -> ToolResult:
    return await toolbox.run(toolbox.resolve(use))


async def test_always_allow_for_edits_does_not_cover_a_protected_write(roots: tuple[Path, Path]) -> None:
    approver = ScriptedApprover("always", "deny")
    toolbox = Toolbox(_ctx(roots, autopilot=False), approver, [WRITE_FILE])
    first = await _run(toolbox, ToolUse("1", "write_file", {"path": "notes.txt", "content": "a"}))
    second = await _run(toolbox, ToolUse("2", "write_file", {"path": "notes2.txt", "content": "b"}))
    planted = await _run(toolbox, ToolUse("3", "write_file", {"path": ".git/config", "content": "evil"}))
    assert not first.is_error
    assert not second.is_error
    assert len(approver.asked) == 2  # notes2.txt rode on "always"; .git/config was asked about
    assert approver.asked[1].warning is not None
    assert planted.is_error
    assert (roots[0] / ".git" / "config").read_text() == "[core]\n"


async def test_headless_autopilot_refuses_with_the_reason(roots: tuple[Path, Path]) -> None:
    toolbox = Toolbox(_ctx(roots, autopilot=True), HeadlessApprover(), [WRITE_FILE, EDIT_FILE])
    planted = await _run(
        toolbox, ToolUse("1", "write_file", {"path": ".git/hooks/pre-commit", "content": "x"})
    )
    ordinary = await _run(toolbox, ToolUse("2", "write_file", {"path": "src/new.py", "content": "y"}))
    assert planted.is_error
    assert planted.content.startswith("ERROR: not run: nobody can approve in this session.")
    assert ".git/config and hooks run code" in planted.content
    assert "Do not retry it." in planted.content
    assert not (roots[0] / ".git" / "hooks" / "pre-commit").exists()
    assert not ordinary.is_error
    assert (roots[0] / "src" / "new.py").read_text() == "y"
