"""Reading the user's git configuration for what it names. Load-bearing direction (first corpus):
every value git would read — whatever the quoting, escaping, continuation lines, comments,
subsection syntax or a bad line before it — is read as git reads it, and every include target
(whatever its condition), hooks folder and path in a program value is named, relative ones taken
from where git takes them; a file git refuses cannot hide what follows. The second corpus: words
of a program that are not paths (options, plain program names) and keys that run nothing name
nothing; git itself agrees with the parser on the values (checked with `git config --list`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from levelcode.sandbox.git_config import GitConfigSources, config_entries, named_paths

# (config text, the (key, value) pairs git reads from it)
READ_AS_GIT_DOES = [
    ("[core]\n\tfsmonitor = sh /x/y\n", [("core.fsmonitor", "sh /x/y")]),
    ('[core]\n\tfsmonitor = "sh  /x/y" # comment\n', [("core.fsmonitor", "sh  /x/y")]),
    ("[core]\n\tfsmonitor = sh \\\n  /x/y\n", [("core.fsmonitor", "sh   /x/y")]),
    ('[core]\n\teditor = "a\\"b" ; c\n', [("core.editor", 'a"b')]),
    ("[Core]\n\tFSMonitor=x\n", [("core.fsmonitor", "x")]),
    ('[filter "My.Driver"]\n\tclean = ./c\n', [("filter.My.Driver.clean", "./c")]),
    ("[filter.old]\n\tclean = ./c\n", [("filter.old.clean", "./c")]),
    ("[core] hooksPath = h\n", [("core.hookspath", "h")]),
    ('[includeIf "gitdir:~/work/"]\n\tpath = a.cfg\n', [("includeif.gitdir:~/work/.path", "a.cfg")]),
    ("[core]\n\tbare\n", [("core.bare", "")]),
    ("junk line\n[core]\n\tfsmonitor = x\n", [("core.fsmonitor", "x")]),
    ("[core\n[alias]\n\tx = !./run\n", [("alias.x", "!./run")]),
    ("[core]\r\n\tpager = less\r\n", [("core.pager", "less")]),
]


@pytest.mark.parametrize(("text", "expected"), READ_AS_GIT_DOES)
def test_values_are_read_as_git_reads_them(text: str, expected: list[tuple[str, str]]) -> None:
    assert config_entries(text) == expected


@pytest.mark.parametrize(("text", "expected"), READ_AS_GIT_DOES[:-3] + READ_AS_GIT_DOES[-1:])
def test_git_itself_reads_the_same_values(tmp_path: Path, text: str, expected: list[tuple[str, str]]) -> None:
    """The corpus minus the files git refuses as a whole (the parser reads on past their bad line)."""
    config = tmp_path / "config"
    config.write_text(text)
    listed = subprocess.run(
        ["git", "config", "--file", str(config), "--list", "-z"], capture_output=True, text=True, check=True
    )
    pairs = [item.partition("\n") for item in listed.stdout.split("\0") if item]
    assert [(key, value) for key, _, value in pairs] == expected


def _sources(home: Path, text: str) -> GitConfigSources:
    (home / ".gitconfig").write_text(text)
    return GitConfigSources(home, (home / ".gitconfig",))


def test_include_targets_are_followed_whatever_their_condition(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    ws.mkdir()
    (ws / "one.cfg").write_text("[include]\n\tpath = two.cfg\n")  # relative to the including file
    sources = _sources(
        home,
        f'[includeIf "gitdir:/nowhere/"]\n\tpath = {ws}/one.cfg\n'
        '[includeIf "onbranch:main"]\n\tpath = ~/branch.cfg\n[include]\n\tpath = %(prefix)/etc/x\n',
    )
    named = named_paths(sources, [], [ws])
    assert set(named.config_files) == {
        home / ".gitconfig",
        ws / "one.cfg",
        ws / "two.cfg",
        home / "branch.cfg",
    }


def test_an_include_loop_and_a_deep_chain_end(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    for i in range(20):
        (home / f"{i}.cfg").write_text(f"[include]\n\tpath = {i + 1}.cfg\n")
    (home / "loop.cfg").write_text("[include]\n\tpath = loop.cfg\n")
    named = named_paths(_sources(home, "[include]\n\tpath = 0.cfg\n\tpath = loop.cfg\n"), [], [])
    assert home / "loop.cfg" in named.config_files
    assert len(named.config_files) <= 64


def test_folders_and_programs_are_named_from_each_work_tree(tmp_path: Path) -> None:
    home, ws, sub = tmp_path / "home", tmp_path / "ws", tmp_path / "ws" / "sub"
    home.mkdir()
    sub.mkdir(parents=True)
    sources = _sources(
        home,
        "[core]\n\thooksPath = .githooks\n\tfsmonitor = ~/bin/watch --fast\n"
        '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tsmudge = ./tools/smudge --mode=x\n'
        '[diff "img"]\n\ttextconv = exiftool\n[alias]\n\tst = status\n\tgo = !./scripts/go.sh --out=build/x\n'
        '[user]\n\tname = ./not/a/program\n[remote "o"]\n\turl = ../other\n',
    )
    named = named_paths(sources, [], [ws, sub])
    assert set(named.folders) == {ws / ".githooks", sub / ".githooks"}
    assert set(named.programs) == {
        home / "bin" / "watch",
        ws / "tools" / "smudge",
        sub / "tools" / "smudge",
        ws / "scripts" / "go.sh",
        sub / "scripts" / "go.sh",
        ws / "build" / "x",
        sub / "build" / "x",
    }


def test_a_repository_s_own_config_and_the_environment_s_are_read(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    (ws / ".git").mkdir(parents=True)
    (ws / ".git" / "config").write_text("[core]\n\thooksPath = .husky/_\n")
    (ws / ".git" / "config.worktree").write_text("[core]\n\tsshCommand = ./ssh.sh\n")
    env = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.Pager", "GIT_CONFIG_VALUE_0": "./pager.sh"}
    sources = GitConfigSources.from_environment(env, home, home / ".config")
    assert sources.files == (Path("/etc/gitconfig"), home / ".config" / "git" / "config", home / ".gitconfig")
    named = named_paths(sources, [ws / ".git"], [ws])
    assert named.folders == (ws / ".husky" / "_",)
    assert set(named.programs) == {ws / "ssh.sh", ws / "pager.sh"}
    assert ws / ".git" / "config.worktree" in named.config_files


def test_the_environment_can_name_other_config_files() -> None:
    env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/cfg/git"}
    assert GitConfigSources.from_environment(env, Path("/h"), Path("/h/.config")).files == (Path("/cfg/git"),)


def test_a_program_named_without_a_slash_is_found_through_path(tmp_path: Path) -> None:
    """An activated virtual environment inside the workspace puts its bin/ first on PATH."""
    home, bin_dir = tmp_path / "home", tmp_path / "ws" / ".venv" / "bin"
    home.mkdir()
    bin_dir.mkdir(parents=True)
    for name in ("black", "status", "pre-commit"):
        (bin_dir / name).write_text("#!/bin/sh\n")
        (bin_dir / name).chmod(0o755)
    (home / ".gitconfig").write_text(
        '[filter "fmt"]\n\tclean = black -q -\n[alias]\n\tst = status\n\tpc = !pre-commit run\n'
        "[core]\n\tpager = not-installed-anywhere\n"
    )
    sources = GitConfigSources(home, (home / ".gitconfig",), search_path=f"{bin_dir}:/usr/bin:/bin")
    assert set(named_paths(sources, [], []).programs) == {bin_dir / "black", bin_dir / "pre-commit"}


@pytest.mark.parametrize(
    "entry",
    [
        '[filter "lfs"]\n\tprocess = ./tools/driver filter-process\n',  # the long-running filter protocol
        '[filter "fmt"]\n\tclean = ./tools/driver --clean\n',
        '[filter "fmt"]\n\tsmudge = ./tools/driver --smudge\n',
        '[diff "img"]\n\ttextconv = ./tools/driver\n',
        '[diff "img"]\n\tcommand = ./tools/driver\n',
        '[merge "ours"]\n\tdriver = ./tools/driver %O %A %B\n',
    ],
)
def test_every_driver_program_is_named(tmp_path: Path, entry: str) -> None:
    """Each key of a filter, diff or merge driver that git runs names its program; `process` too,
    which git starts once and keeps talking to (git-lfs's `filter-process`)."""
    home, ws = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    assert named_paths(_sources(home, entry), [], [ws]).programs == (ws / "tools" / "driver",)
