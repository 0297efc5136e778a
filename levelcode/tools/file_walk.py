"""Walking a directory tree for find_files and search_files.

Honours .gitignore files (the search root's ancestors up to the allowed root, and every directory
walked), skips `.git`, never descends through a symbolic link, and never yields a link whose
target lies outside the allowed roots: a walk must not become a way around the path guard.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pathspec

from levelcode.tools.path_guard import is_inside

MAX_WALK_ENTRIES = 200_000


class IgnoreRules:
    """The .gitignore specs in force for one directory, each kept with the directory it sits in."""

    def __init__(self, specs: tuple[tuple[Path, pathspec.GitIgnoreSpec], ...] = ()) -> None:
        self._specs = specs

    def with_directory(self, directory: Path) -> IgnoreRules:
        try:
            lines = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
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


def _ancestor_rules(start: Path, roots: tuple[Path, ...]) -> IgnoreRules:
    root = next((r for r in roots if start.is_relative_to(r)), start)
    rules = IgnoreRules()
    for directory in reversed(start.parents):
        if directory.is_relative_to(root):
            rules = rules.with_directory(directory)
    return rules


class FileWalk:
    """Files under `start`, in sorted depth-first order; `truncated` tells whether the walk gave up."""

    def __init__(self, start: Path, roots: tuple[Path, ...], *, max_entries: int = MAX_WALK_ENTRIES) -> None:
        self._start = start
        self._roots = roots
        self._budget = max_entries
        self.truncated = False

    def __iter__(self) -> Iterator[Path]:
        stack = [(self._start, _ancestor_rules(self._start, self._roots))]
        while stack:
            directory, rules = stack.pop()
            rules = rules.with_directory(directory)
            subdirectories: list[Path] = []
            for path, is_dir in self._entries(directory):
                if rules.ignored(path, is_dir=is_dir):
                    continue
                if is_dir:
                    subdirectories.append(path)
                else:
                    yield path
            stack.extend((sub, rules) for sub in reversed(subdirectories))

    def _entries(self, directory: Path) -> Iterator[tuple[Path, bool]]:
        try:
            with os.scandir(directory) as scan:
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
            path = Path(entry.path)
            if entry.is_symlink():
                target = Path(os.path.realpath(path))
                if target.is_file() and is_inside(target, self._roots):
                    yield path, False
            elif entry.is_dir(follow_symlinks=False):
                yield path, True
            elif entry.is_file(follow_symlinks=False):
                yield path, False


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
