"""Read-modify-write of a small JSON file, safe against crashes and against a second LevelCode.

The whole update runs under an exclusive lock on a sibling `.lock` file, and the new content
replaces the old atomically (write a temporary file, fsync, rename), created with the mode the
caller asks for (0600 for anything security-relevant). A reader never sees half a file. A path
that is a symbolic link (a settings.json kept with the user's dotfiles) is written through: the
file it points at is replaced, beside itself, and the link stays the link.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from levelcode.core.errors import ConfigProblem
from levelcode.core.json_text import parse_json_text

JsonDoc = dict[str, Any]


# What every writer says of a file it found unreadable: it is left exactly as it is.
NOT_OVERWRITTEN = "fix it first (LevelCode does not overwrite a file it cannot read)"


class UnreadableFile(Exception):
    """The file exists but is not a JSON object: `problem` names the file (and where its text is
    broken); the message says what is wrong, without the file's name."""

    def __init__(self, problem: ConfigProblem) -> None:
        where = f" (line {problem.line}, column {problem.column})" if problem.line is not None else ""
        super().__init__(problem.message + where)
        self.problem = problem


def read_json_object(path: Path) -> JsonDoc:
    """The file's object; {} when missing or blank. Raises UnreadableFile for anything else."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise UnreadableFile(ConfigProblem(str(path), "(file)", f"cannot be read: {exc}")) from exc
    if not text.strip():
        return {}
    doc, problem = parse_json_text(text, file=str(path))
    if problem is not None:
        raise UnreadableFile(problem)
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise UnreadableFile(ConfigProblem(str(path), "(file)", "not a JSON object"))
    return doc


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def write_atomically(path: Path, doc: JsonDoc, *, mode: int = 0o600) -> None:
    path = _written_file(path)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(doc, out, indent=2, ensure_ascii=False)
            out.write("\n")
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise


def _written_file(path: Path) -> Path:
    """The file a write to `path` must replace: `path`, or the file its chain of links ends at
    (renaming over a link would put a regular file in its place and orphan the user's file)."""
    if not path.is_symlink():
        return path
    return Path(os.path.realpath(path))


def update_json(path: Path, change: Callable[[JsonDoc], None], *, mode: int = 0o600) -> JsonDoc:
    """Apply `change` to the file's current object under the lock and write it back atomically.

    Raises UnreadableFile (and writes nothing) when the current file cannot be parsed, so a
    user's hand-edited file with a typo is never overwritten.
    """
    with locked(path):
        doc = read_json_object(path)
        change(doc)
        write_atomically(path, doc, mode=mode)
        return doc
