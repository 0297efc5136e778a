"""Opening what the path guard placed: every read, listing and write of a file tool, `@path` and
a saved result goes through here, beneath its root's descriptor (platform/open_beneath.py), never by
its full name. Says in the tools' words what went wrong; knows nothing of any one tool.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TextIO

from levelcode.core.errors import ToolError
from levelcode.platform.open_beneath import open_directory, open_readable, walked, write_new_or_replace
from levelcode.tools.path_guard import Placed

SNIFF_BYTES = 8192
_LINK_ON_THE_WAY = (errno.ELOOP, errno.EXDEV)


@dataclass(frozen=True)
class Opened:
    """A regular file or a folder, open for reading, with what fstat said of it."""

    fd: int
    info: os.stat_result

    @property
    def is_folder(self) -> bool:
        return stat.S_ISDIR(self.info.st_mode)

    def text(self, errors: str = "replace") -> TextIO:
        """The file as UTF-8 text from the start, line ends kept (the descriptor stays this object's)."""
        os.lseek(self.fd, 0, os.SEEK_SET)
        return open(self.fd, encoding="utf-8", errors=errors, newline="", closefd=False)

    def looks_binary(self) -> bool:
        """A NUL byte near the start is what git and grep take as 'binary', and so do we."""
        return b"\x00" in os.pread(self.fd, SNIFF_BYTES, 0)


class Missing(ToolError):
    """Nothing is there (a caller may say so in its own words)."""

    def __init__(self, placed: Placed) -> None:
        super().__init__(f"{placed.raw!r} does not exist (looked at {placed.path})")
        self.placed = placed


def _link_refusal(placed: Placed) -> ToolError:
    return ToolError(
        f"{placed.raw!r} could not be opened without following a symbolic link: something on the way "
        f"to {placed.path} is a link now (it changed after it was checked, or it loops); nothing was "
        "read or written"
    )


@contextmanager
def _root(placed: Placed) -> Iterator[int]:
    try:
        fd = open_directory(placed.root)
    except OSError as exc:
        raise ToolError(f"could not open {placed.root}: {exc.strerror or exc}") from None
    try:
        yield fd
    finally:
        os.close(fd)


@contextmanager
def opened_for_reading(placed: Placed) -> Iterator[Opened]:
    """The regular file or folder `placed` names, open for reading. ToolError when it is missing,
    something else (a FIFO, a device), unreadable, or a link appeared on the way."""
    with _root(placed) as root:
        try:
            fd, info = open_readable(root, placed.relative)
        except (FileNotFoundError, NotADirectoryError):
            raise Missing(placed) from None
        except OSError as exc:
            raise _read_refusal(placed, exc) from None
    with _holding(fd, info) as opened:
        yield opened


@contextmanager
def opened_at(folder: int, name: str) -> Iterator[Opened]:
    """The regular file or folder `name` in the open folder `folder` (a walk's), for reading;
    OSError as open_readable says it."""
    with _holding(*open_readable(folder, name)) as opened:
        yield opened


@contextmanager
def _holding(fd: int, info: os.stat_result) -> Iterator[Opened]:
    try:
        yield Opened(fd, info)
    finally:
        os.close(fd)


def _read_refusal(placed: Placed, exc: OSError) -> ToolError:
    if exc.errno in _LINK_ON_THE_WAY:
        return _link_refusal(placed)
    if exc.errno == errno.EINVAL:
        return ToolError(f"{placed.raw!r} is not a regular file or folder (a FIFO, socket or device)")
    return ToolError(f"could not read {placed.raw!r}: {exc.strerror or exc}")


def write_placed(placed: Placed, data: bytes) -> bool:
    """`data` as the whole content of the file `placed` names, its missing parent folders made; a
    file that exists is replaced at once, never left half-written. True when it existed."""
    folder, _, name = placed.relative.rpartition("/")
    try:
        if not name:
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        with _root(placed) as root, walked(root, folder.split("/") if folder else [], create=True) as parent:
            return write_new_or_replace(parent, name, data)
    except IsADirectoryError:
        raise ToolError(f"{placed.raw!r} is a directory; give a file path") from None
    except OSError as exc:
        if exc.errno in _LINK_ON_THE_WAY:
            raise _link_refusal(placed) from None
        if exc.errno == errno.EINVAL:
            raise ToolError(f"{placed.raw!r} is not a regular file (a FIFO, socket or device)") from None
        raise ToolError(f"could not write {placed.raw!r}: {exc.strerror or exc}") from None
