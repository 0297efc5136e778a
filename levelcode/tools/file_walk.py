"""Walking a directory tree for find_files and search_files.

Honours .gitignore files (the search root's ancestors up to the allowed root, and every directory
walked), skips `.git`, never descends through a symbolic link, and never yields a link whose
target lies outside the allowed roots: a walk must not become a way around the path guard. It
walks from descriptors (platform/open_beneath.py): each folder is opened from the one above it without
following a link, so a folder swapped for a link while the walk runs is skipped, not entered.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from levelcode.platform.open_beneath import open_beneath, open_directory
from levelcode.tools.path_guard import Placed
from levelcode.tools.rooted_files import Opened, opened_at, opened_for_reading

MAX_WALK_ENTRIES = 200_000
MAX_DEPTH = 128  # folders open at once; deeper than this the walk stops and says so
_FOLDER = os.O_RDONLY | os.O_DIRECTORY


class IgnoreRules:
    """The .gitignore specs in force for one directory, each kept with the directory it sits in."""

    def __init__(self, specs: tuple[tuple[Path, pathspec.GitIgnoreSpec], ...] = ()) -> None:
        self._specs = specs

    def with_directory(self, folder: int, relative: str, directory: Path) -> IgnoreRules:
        """With the .gitignore of `directory`, read from `relative` beneath the open `folder`."""
        try:
            with opened_at(folder, f"{relative}/.gitignore") as opened:
                if opened.is_folder:
                    return self
                with opened.text() as handle:
                    lines = handle.read().splitlines()
        except OSError:
            return self
        return IgnoreRules((*self._specs, (directory, pathspec.GitIgnoreSpec.from_lines(lines))))

    def ignored(self, path: Path, *, is_dir: bool) -> bool:
        for base, spec in self._specs:
            if path.is_relative_to(base):
                relative = path.relative_to(base).as_posix() + ("/" if is_dir else "")
                if spec.match_file(relative):
                    return True
        return False


def _ancestor_rules(root_fd: int, start: Path, root: Path) -> IgnoreRules:
    rules = IgnoreRules()
    for directory in reversed(start.parents):
        if directory.is_relative_to(root):
            rules = rules.with_directory(root_fd, _below(directory, root), directory)
    return rules


def _below(path: Path, root: Path) -> str:
    return "/".join(path.relative_to(root).parts) or "."


@dataclass(frozen=True)
class WalkedFile:
    """A file the walk found, while the walk stands in its folder (open as `folder`)."""

    path: Path
    folder: int
    name: str
    target: Placed | None = None  # a link to a file inside the roots: where it leads

    def opened(self) -> AbstractContextManager[Opened]:
        """The file for reading; a link is opened where it leads, beneath that root."""
        return opened_at(self.folder, self.name) if self.target is None else opened_for_reading(self.target)


@dataclass
class _Folder:
    fd: int
    path: Path
    rules: IgnoreRules
    pending: list[str] = field(default_factory=list[str])  # subfolders still to walk, last first


class FileWalk:
    """Files under `start` (resolved, inside one of `roots`), in sorted depth-first order;
    `truncated` tells whether the walk gave up. A `start` that is a file is the one file found."""

    def __init__(self, start: Path, roots: tuple[Path, ...], *, max_entries: int = MAX_WALK_ENTRIES) -> None:
        self._start = start
        self._roots = roots
        self._budget = max_entries
        self.truncated = False

    def __iter__(self) -> Iterator[WalkedFile]:
        root = next((r for r in self._roots if self._start.is_relative_to(r)), None)
        if root is None:
            return
        stack: list[_Folder] = []
        try:
            root_fd = open_directory(root)
            stack.append(_Folder(root_fd, root, IgnoreRules()))
            yield from self._begin(stack, root_fd, root)
            while len(stack) > 1:
                yield from self._next(stack)
        except OSError:
            return
        finally:
            for folder in stack:
                os.close(folder.fd)

    def _begin(self, stack: list[_Folder], root_fd: int, root: Path) -> Iterator[WalkedFile]:
        relative = _below(self._start, root)
        rules = _ancestor_rules(root_fd, self._start, root)
        fd = open_beneath(root_fd, relative, os.O_RDONLY | os.O_NONBLOCK)
        if not stat.S_ISDIR(os.fstat(fd).st_mode):  # the start is one file: found in its folder
            os.close(fd)
            folder, _, name = relative.rpartition("/")
            stack.append(_Folder(open_beneath(root_fd, folder, _FOLDER), self._start.parent, IgnoreRules()))
            yield WalkedFile(self._start, stack[-1].fd, name)
            return
        yield from self._enter(stack, fd, self._start, rules)

    def _next(self, stack: list[_Folder]) -> Iterator[WalkedFile]:
        top = stack[-1]
        if not top.pending:
            os.close(stack.pop().fd)
            return
        name = top.pending.pop()
        if len(stack) > MAX_DEPTH:
            self.truncated = True
            return
        try:
            fd = open_beneath(top.fd, name, _FOLDER)
        except OSError:  # gone, unreadable, or a link now: not entered
            return
        yield from self._enter(stack, fd, top.path / name, top.rules)

    def _enter(
        self, stack: list[_Folder], fd: int, directory: Path, rules: IgnoreRules
    ) -> Iterator[WalkedFile]:
        folder = _Folder(fd, directory, rules)
        stack.append(folder)  # held from here: closed by the walk whatever happens next
        folder.rules = rules.with_directory(fd, ".", directory)
        subfolders: list[str] = []
        for name, is_dir, target in self._entries(fd, directory):
            path = directory / name
            if folder.rules.ignored(path, is_dir=is_dir):
                continue
            if is_dir:
                subfolders.append(name)
            else:
                yield WalkedFile(path, fd, name, target)
        folder.pending = subfolders[::-1]

    def _entries(self, fd: int, directory: Path) -> Iterator[tuple[str, bool, Placed | None]]:
        try:
            with os.scandir(fd) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError:
            return
        for entry in entries:
            self._budget -= 1
            if self._budget < 0:
                self.truncated = True
                return
            if entry.name == ".git":
                continue
            if entry.is_symlink():
                target = self._link_target(directory / entry.name)
                if target is not None:
                    yield entry.name, False, target
            elif entry.is_dir(follow_symlinks=False):
                yield entry.name, True, None
            elif entry.is_file(follow_symlinks=False):
                yield entry.name, False, None

    def _link_target(self, link: Path) -> Placed | None:
        """Where a link leads when that is a file inside the roots (it is opened there, beneath
        its root, when read); None otherwise."""
        try:
            target = Path(os.path.realpath(link))
        except OSError:  # it changed while it was read: not found
            return None
        root = next((r for r in self._roots if target.is_relative_to(r)), None)
        if root is None or not target.is_file():
            return None
        return Placed(target, root, str(link))


def _translate(pattern: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        char = pattern[i]
        close = pattern.find("]" if char == "[" else "}", i + 2 if char == "[" else i + 1)
        if pattern.startswith("**", i):
            out.append(".*")
            i += 1
        elif char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and close != -1:
            body = pattern[i + 1 : close]
            negate = body[:1] in ("!", "^")
            members = (body[1:] if negate else body).replace("\\", "\\\\")
            out.append("[" + ("^" if negate else "") + members + "]")
            i = close
        elif char == "{" and close != -1 and "," in pattern[i:close]:
            options = pattern[i + 1 : close].split(",")
            out.append("(?:" + "|".join(_translate(option) for option in options) + ")")
            i = close
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def glob_matcher(pattern: str) -> re.Pattern[str]:
    """A regex for a glob: `*` and `?` stay within one path part, `**` crosses parts, `{a,b}` and
    `[abc]` work. Patterns without a '/' are matched against the file name at any depth."""
    pattern = pattern.removeprefix("./")
    prefix = "" if "/" in pattern else "(?:.*/)?"
    return re.compile(prefix + _translate(pattern) + r"\Z")
