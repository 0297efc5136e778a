"""Judging a path a shell command writes to or deletes, for the command safety classifier.

Only stat-like work (resolving symlinks); never opens or runs anything. When a path cannot be
judged — computed at run time, relative to a directory the command moved to in a way we cannot
follow, or no workspace is known — it counts as a problem: the classifier over-flags.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

from levelcode.tools.command_check.shell_words import Word
from levelcode.tools.protected_paths import protected_folder

HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_FD_TARGET = re.compile(r"/dev/fd/[0-9]+")
_STDIN_PATH = re.compile(r"-|/dev/stdin|/dev/fd/[0-9]+|/proc/(self|thread-self|[0-9]+)/fd/[0-9]+")
SYSTEM_DIRS: tuple[str, ...] = (
    "/etc",
    "/boot",
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/opt",
    "/var",
)
SYSTEM_DIRS += ("/sys", "/proc", "/root", "/System", "/Library", "/private/etc")
HOME_SECRETS: tuple[str, ...] = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".config/gcloud",
    ".config/gh",
)
HOME_STARTUP: tuple[str, ...] = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
)
HOME_STARTUP += (".zprofile", ".zlogin", ".cshrc", ".tcshrc", ".login", ".inputrc", ".gitconfig", ".npmrc")
HOME_STARTUP += (".pypirc", ".netrc", ".git-credentials", ".config/fish", ".config/autostart")
HOME_STARTUP += (".config/systemd", ".config/git", ".local/bin", "Library/LaunchAgents")


def names_stdin(word: Word) -> bool:
    """Whether a file operand stands for the program's own input (`-`, /dev/stdin, /dev/fd/0 ...),
    which is text the command line does not show."""
    return _STDIN_PATH.fullmatch(word.text) is not None


def _protected_problem(parts: tuple[str, ...], text: str) -> str | None:
    found = protected_folder(parts)
    return None if found is None else f"{found[0]}/, where {found[1]} ({text!r})"


def _home() -> Path:
    return Path(os.path.expanduser("~"))


def _under(path: Path, base: Path) -> bool:
    return path == base or path.is_relative_to(base)


def sensitive_kind(path: Path) -> str | None:
    """What makes `path` (absolute, resolved) dangerous to write, even inside the workspace."""
    text = str(path)
    if text.startswith("/dev/") and text not in HARMLESS_TARGETS and not _FD_TARGET.fullmatch(text):
        return "a device"
    home = _home()
    if any(_under(path, home / name) for name in HOME_SECRETS):
        return "a credentials directory"
    if any(_under(path, home / name) for name in HOME_STARTUP):
        return "a shell or tool start-up file"
    return None


def _outside_kind(path: Path) -> str:
    if path == Path("/") or any(_under(path, Path(name)) for name in SYSTEM_DIRS):
        return "a system path"
    return "a path outside the workspace"


@dataclass(frozen=True)
class PathScope:
    """Where relative paths start and which directories a command may write in.

    `cwd` None with `lost` False means no workspace was given: relative paths that stay below the
    starting directory pass. `lost` means a `cd` took the command somewhere we cannot follow.
    """

    roots: tuple[Path, ...] = ()
    cwd: Path | None = None
    lost: bool = False

    @classmethod
    def for_workspace(cls, workspace: Path | None, extra_roots: tuple[Path, ...] = ()) -> PathScope:
        if workspace is None:
            return cls()
        roots = tuple(Path(os.path.realpath(root)) for root in (workspace, *extra_roots))
        return cls(roots, roots[0])

    def moved_to(self, target: Word | None) -> PathScope:
        """The scope after `cd target` (None: `cd` alone, which goes home)."""
        if target is None or target.text in ("~", ""):
            return replace(self, cwd=_home(), lost=False)
        if target.dynamic or target.pattern or target.text == "-":
            return replace(self, lost=True)
        path = Path(os.path.expanduser(target.text))
        if path.is_absolute():
            return replace(self, cwd=Path(os.path.realpath(path)), lost=False)
        if self.cwd is None or self.lost:
            return replace(self, lost=True)
        return replace(self, cwd=Path(os.path.realpath(self.cwd / path)))

    def resolve(self, word: Word) -> Path | None:
        """The absolute, resolved path `word` names, or None when that cannot be known here."""
        path = Path(os.path.expanduser(word.text))
        if path.is_absolute():
            return Path(os.path.realpath(path))
        if self.cwd is None or self.lost:
            return None
        return Path(os.path.realpath(self.cwd / path))

    def write_problem(self, word: Word) -> str | None:
        """Why writing (or deleting) `word` needs a look, in a phrase such as "a system path ('/etc/x')";
        None when it is plainly inside the workspace."""
        text = word.text
        if text in HARMLESS_TARGETS or _FD_TARGET.fullmatch(text):
            return None
        if word.dynamic:
            return f"a path computed when the command runs ({text!r})"
        path = self.resolve(word)
        if path is None:
            return self._unanchored_problem(text)
        if kind := sensitive_kind(path):
            return f"{kind} ({text!r})"
        root = next((root for root in self.roots if _under(path, root)), None)
        if root is None:
            return f"{_outside_kind(path)} ({text!r})"
        return _protected_problem(path.relative_to(root).parts, text)

    def outside_problem(self, word: Word) -> str | None:
        """Why a file the command reads and runs (a makefile, a package path) needs a look: it is
        computed at run time or lies outside the workspace. None when it is plainly inside."""
        if word.dynamic:
            return f"a path computed when the command runs ({word.text!r})"
        path = self.resolve(word)
        if path is None:
            leaves = self.lost or ".." in Path(word.text).parts
            return f"a path that may leave the workspace ({word.text!r})" if leaves else None
        if any(_under(path, root) for root in self.roots):
            return None
        return f"{_outside_kind(path)} ({word.text!r})"

    def _unanchored_problem(self, text: str) -> str | None:
        if self.lost:
            return f"a path relative to a directory the command changed to ({text!r})"
        if ".." in Path(text).parts:
            return f"a path that may leave the workspace ({text!r})"
        return _protected_problem(Path(text).parts, text)
