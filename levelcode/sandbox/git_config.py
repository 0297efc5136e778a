"""The files and programs the user's git configuration names: the config files git reads (system,
global, each repository's own and every `include.path`/`includeIf` target, whatever its condition,
followed to git's depth), the `core.hooksPath` and `init.templateDir` folders, and every path in a
value git runs as a program (filter and diff drivers, fsmonitor, editors, pagers, aliases, …).

The sandbox keeps those that lie inside a writable folder read-only, and treats one that appears
there as planted. Reads config files with a parser of its own (git's syntax: sections,
subsections, quotes, escapes, continuation lines) that reads on past a bad line rather than
giving up, so a broken file cannot hide the rest. Never runs git and never writes.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

MAX_INCLUDE_DEPTH = 10  # git's own limit
MAX_CONFIG_FILES = 64
MAX_CONFIG_BYTES = 1_000_000
MAX_WORK_TREES = 64  # relative program paths are looked for from each of these

# Keys whose value is a folder git reads hooks or templates from.
FOLDER_KEYS = re.compile(r"core\.hookspath|init\.templatedir")
# Keys whose value git runs (through the shell): a path in it names a program.
PROGRAM_KEYS = re.compile(
    r"core\.(editor|pager|sshcommand|askpass|gitproxy|fsmonitor)|sequence\.editor|diff\.external"
    r"|interactive\.difffilter|gpg\.program|gpg\.ssh\.defaultkeycommand|gpg\..+\.program"
    r"|credential\.helper|credential\..+\.helper|pager\..+|alias\..+"
    r"|filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|merge\..+\.driver"
    r"|(diff|merge)tool\..+\.(cmd|path)|(browser|man|guitool)\..+\.(cmd|path)|web\.browser"
    r"|sendemail\.(.+\.)?(smtpserver|sendmailcmd|tocmd|cccmd)|trailer\..+\.(command|cmd)"
    r"|remote\..+\.(uploadpack|receivepack)|instaweb\.httpd"
)
_ESCAPES = {"\n": "", "t": "\t", "b": "\b", "n": "\n", "\\": "\\", '"': '"'}


@dataclass(frozen=True)
class GitConfigSources:
    """Where the user's git reads configuration, as their environment says."""

    home: Path
    files: tuple[Path, ...]  # system, then global: those that exist and those that may appear
    inline: tuple[tuple[str, str], ...] = ()  # GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n
    search_path: str = ""  # PATH, where a program named without a slash is found

    @classmethod
    def from_environment(cls, env: Mapping[str, str], home: Path, config_home: Path) -> GitConfigSources:
        system = (
            [] if env.get("GIT_CONFIG_NOSYSTEM") else [Path(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")]
        )
        named = env.get("GIT_CONFIG_GLOBAL")
        user = [Path(named)] if named else [config_home / "git" / "config", home / ".gitconfig"]
        return cls(home, (*system, *user), _inline(env), env.get("PATH", ""))


def _inline(env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    try:
        count = min(int(env.get("GIT_CONFIG_COUNT") or 0), 1000)
    except ValueError:
        return ()
    pairs = ((env.get(f"GIT_CONFIG_KEY_{i}", ""), env.get(f"GIT_CONFIG_VALUE_{i}", "")) for i in range(count))
    return tuple((_normal_key(key), value) for key, value in pairs if key)


def _normal_key(key: str) -> str:
    """section.SubSection.name with section and name in lower case, as the parser writes keys."""
    section, _, rest = key.partition(".")
    middle, _, name = rest.rpartition(".")
    return ".".join(part for part in (section.lower(), middle, name.lower()) if part)


def config_entries(text: str) -> list[tuple[str, str]]:
    """The (key, value) pairs of one config file's text, in order; a line git would refuse is
    skipped (git refuses the whole file; reading on only ever finds more to protect)."""
    entries: list[tuple[str, str]] = []
    section: str | None = None
    text = text.replace("\r\n", "\n")
    i = 0
    while i < len(text):
        char = text[i]
        if char in " \t\n":
            i += 1
        elif char == "[":
            section, i = _header(text, i)
        elif char.isalpha() and section is not None:
            i = _entry(text, i, section, entries)
        else:  # a comment, or something git would not accept
            i = _line_end(text, i)
    return entries


def _line_end(text: str, i: int) -> int:
    end = text.find("\n", i)
    return len(text) if end < 0 else end + 1


def _header(text: str, i: int) -> tuple[str | None, int]:
    end = text.find("]", i)
    newline = text.find("\n", i)
    if end < 0 or (0 <= newline < end):
        return None, _line_end(text, i)
    inside = text[i + 1 : end]
    name, quote, rest = inside.partition('"')
    if not quote:  # [section] or the old [section.subsection], both in lower case
        return inside.strip().lower(), end + 1
    subsection = re.sub(r"\\(.)", r"\1", rest.rsplit('"', 1)[0])
    return f"{name.strip().lower()}.{subsection}", end + 1


def _entry(text: str, i: int, section: str, entries: list[tuple[str, str]]) -> int:
    start = i
    while i < len(text) and (text[i].isalnum() or text[i] == "-"):
        i += 1
    key = f"{section}.{text[start:i].lower()}"
    while i < len(text) and text[i] in " \t":
        i += 1
    if i >= len(text) or text[i] in "\n#;":
        entries.append((key, ""))  # a key alone is a boolean true
        return _line_end(text, i) if i < len(text) and text[i] != "\n" else i
    if text[i] != "=":
        return _line_end(text, i)
    value, i = _value(text, i + 1)
    entries.append((key, value))
    return i


def _value(text: str, i: int) -> tuple[str, int]:
    """A value as git reads it: quotes removed, escapes applied, a backslash-newline joining lines,
    each whitespace character outside quotes kept as a space between words, none at either end."""
    out: list[str] = []
    quoted = comment = False
    spaces = 0
    while i < len(text):
        char = text[i]
        i += 1
        if char == "\n":
            break
        if comment:
            continue
        if char in " \t" and not quoted:
            spaces += 1 if out else 0
            continue
        if not quoted and char in "#;":
            comment = True
            continue
        out.append(" " * spaces)
        spaces = 0
        if char == "\\" and i < len(text):
            out.append(_ESCAPES.get(text[i], text[i]))
            i += 1
        elif char == '"':
            quoted = not quoted
        else:
            out.append(char)
    return "".join(out), i


@dataclass(frozen=True)
class NamedPaths:
    config_files: tuple[Path, ...]  # every file git would read, present or not
    folders: tuple[Path, ...]  # hooks and template folders
    programs: tuple[Path, ...]  # paths in values git runs


def named_paths(
    sources: GitConfigSources, git_dirs: Iterable[Path], work_trees: Iterable[Path]
) -> NamedPaths:
    """What the configuration of the user's git, and of each repository (its `git_dirs`), names.
    A relative folder or program is taken from the top of each of `work_trees`, where git runs it."""
    files = [*sources.files, *(d / name for d in git_dirs for name in ("config", "config.worktree"))]
    entries = list(sources.inline)
    read: list[Path] = []
    files += [p for k, v in sources.inline if _is_include(k) for p in _placed(v, sources.home, [])]
    for path in files[:MAX_CONFIG_FILES]:
        _read_with_includes(path, sources.home, 0, read, entries)
    trees = list(work_trees)[:MAX_WORK_TREES]
    folders: list[Path] = []
    programs: list[Path] = []
    for key, value in entries:
        if FOLDER_KEYS.fullmatch(key):
            folders += _placed(value, sources.home, trees)
        elif PROGRAM_KEYS.fullmatch(key):
            programs += [p for word in _path_words(value) for p in _placed(word, sources.home, trees)]
            programs += _found_on_path(key, value, sources.search_path)
    return NamedPaths(
        tuple(dict.fromkeys(read)), tuple(dict.fromkeys(folders)), tuple(dict.fromkeys(programs))
    )


def _read_with_includes(
    path: Path, home: Path, depth: int, read: list[Path], entries: list[tuple[str, str]]
) -> None:
    if path in read or len(read) >= MAX_CONFIG_FILES or depth > MAX_INCLUDE_DEPTH:
        return
    read.append(path)
    for key, value in config_entries(_text(path)):
        entries.append((key, value))
        if _is_include(key):
            target = _expanded(value, home)
            if target is not None:
                _read_with_includes(path.parent / target, home, depth + 1, read, entries)


def _is_include(key: str) -> bool:
    return key == "include.path" or (key.startswith("includeif.") and key.endswith(".path"))


def _text(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return handle.read(MAX_CONFIG_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _expanded(value: str, home: Path) -> Path | None:
    """A path value as git expands it (`~/`, `~user/`); None for one under git's own prefix."""
    if not value or value.startswith("%(prefix)"):
        return None
    if value == "~" or value.startswith("~/"):
        return home / value[2:]
    return Path(os.path.expanduser(value)) if value.startswith("~") else Path(value)


def _placed(value: str, home: Path, trees: list[Path]) -> list[Path]:
    path = _expanded(value.strip(), home)
    if path is None:
        return []
    return [path] if path.is_absolute() else [tree / path for tree in trees]


def _found_on_path(key: str, command: str, search_path: str) -> list[Path]:
    """The program a command value starts with, when it is named without a slash and PATH finds
    it (e.g. in an activated virtual environment inside the workspace); not a plain alias, which
    names a git command."""
    if not search_path or (key.startswith("alias.") and not command.startswith("!")):
        return []
    words = command.removeprefix("!").split(maxsplit=1)
    if not words or "/" in words[0] or words[0].startswith("~"):
        return []
    found = shutil.which(words[0], path=search_path)
    return [] if found is None else [Path(found)]


def _path_words(command: str) -> list[str]:
    """The words of a shell command that name a path (with a slash, or from `~`), also after `=`
    (`--out=build/x`); an option itself is not one."""
    try:
        words = shlex.split(command.removeprefix("!"))
    except ValueError:
        words = command.removeprefix("!").split()
    parts = dict.fromkeys(piece for word in words for piece in (word, word.rpartition("=")[2]))
    return [part for part in parts if ("/" in part or part.startswith("~")) and not part.startswith("-")]
