"""Opening a path beneath a directory descriptor, following no symbolic link on the way and never
leaving that directory: openat2(2) with RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS where the kernel
has it (Linux 5.6+), else a walk one component at a time with O_NOFOLLOW; the same refusals both
ways. Platform I/O only: knows nothing of tools, roots or sessions, and never opens by a full name.

Callers resolve a path first (its links followed to where they lead) and then open the resolved
relative path here: a link that appears in between, anywhere on the way, makes the open fail
(ELOOP), so the swap of a folder for a link out can only cost a call, never reach outside.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import platform
import secrets
import stat
import struct
from collections.abc import Callable, Iterator

RESOLVE_NO_MAGICLINKS = 0x02
RESOLVE_NO_SYMLINKS = 0x04
RESOLVE_BENEATH = 0x08
_RESOLVE = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
_NOT_THERE = (errno.ENOSYS, errno.EPERM, errno.E2BIG)  # no openat2, or a seccomp filter hides it
_RETRIES = 8  # openat2 says EAGAIN when a rename raced the lookup: try again, then give up

# What a directory on the way is opened as: a handle to walk from, never a link (O_PATH where the
# system has it, so a folder one may search but not list still works).
_O_PATH = getattr(os, "O_PATH", 0)
DIRECTORY = (_O_PATH or os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_MODE = 0o666  # a new file's mode before the umask, as open(2) gives it


def _syscall_number(machine: str, pointer_bytes: int) -> int | None:
    """openat2's number: 437 in the table most architectures share since Linux 5.1, shifted on the
    few that keep their own; None where unknown or ambiguous (mips' three ABIs): the walk is used."""
    machine = machine.lower()
    if machine in ("x86_64", "amd64"):
        return 437 + (0x40000000 if pointer_bytes == 4 else 0)  # x32 sets its ABI bit
    if machine == "alpha":
        return 547
    shared = (
        *("i386", "i486", "i586", "i686", "aarch64", "arm64", "arm", "riscv", "loongarch", "s390"),
        *("ppc", "powerpc", "sparc", "m68k", "parisc", "sh"),
    )
    return 437 if machine.startswith(shared) else None


def _openat2_call() -> Callable[[int, bytes, int, int], int] | None:
    """A function calling openat2 through libc's syscall(), or None on another system."""
    if platform.system() != "Linux":
        return None
    number = _syscall_number(platform.machine(), struct.calcsize("P"))
    if number is None:
        return None
    try:
        import ctypes
    except ImportError:
        return None
    syscall = ctypes.CDLL(None, use_errno=True).syscall
    syscall.restype = ctypes.c_long

    def openat2(dir_fd: int, path: bytes, flags: int, mode: int) -> int:
        how = struct.pack("=QQQ", flags, mode, _RESOLVE)  # struct open_how: flags, mode, resolve
        fd = int(syscall(ctypes.c_long(number), ctypes.c_long(dir_fd), path, how, ctypes.c_size_t(len(how))))
        if fd < 0:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code), os.fsdecode(path))
        return fd

    return openat2


@functools.cache
def kernel_resolution() -> Callable[[int, bytes, int, int], int] | None:
    """The kernel's openat2 when it works here (probed once, on `/`), else None: an old kernel
    (ENOSYS) or a seccomp filter that refuses the call (EPERM, or ENOSYS) means the walk."""
    call = _openat2_call()
    if call is None:
        return None
    root = os.open("/", DIRECTORY)
    try:
        os.close(call(root, b".", DIRECTORY, 0))
    except OSError as exc:
        if exc.errno not in _NOT_THERE:
            raise
        return None
    finally:
        os.close(root)
    return call


def parts_of(relative: str) -> list[str]:
    """The names on the way down `relative`; absolute paths and `..` are refused (EXDEV, as the
    kernel says for a step out), since nothing here may climb: resolve first, then open."""
    if relative.startswith("/"):
        raise OSError(errno.EXDEV, "an absolute path does not lie beneath a directory", relative)
    parts = [part for part in relative.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise OSError(errno.EXDEV, "'..' would climb out of the directory", relative)
    if any("\x00" in part for part in parts):
        raise OSError(errno.EINVAL, "a name holds a NUL character", relative)
    return parts


def open_beneath(dir_fd: int, relative: str, flags: int, mode: int = _FILE_MODE) -> int:
    """A descriptor for `relative` beneath `dir_fd`, every component a real directory or file
    (no link followed, the last one included: ELOOP). `relative` empty or "." is `dir_fd` itself."""
    parts = parts_of(relative)
    flags |= os.O_NOFOLLOW | os.O_CLOEXEC
    openat2 = kernel_resolution() if len(parts) > 1 else None  # one name with O_NOFOLLOW cannot leave
    if openat2 is not None:
        mode = mode if _creates(flags) else 0  # a mode without O_CREAT is EINVAL to openat2
        fd = _with_retries(lambda: openat2(dir_fd, os.fsencode("/".join(parts) or "."), flags, mode))
    else:
        fd = _walk(dir_fd, parts, flags, mode)
    return _not_a_link(fd, relative) if flags & _O_PATH else fd


def _creates(flags: int) -> bool:
    tmpfile = getattr(os, "O_TMPFILE", 0)  # O_TMPFILE holds O_DIRECTORY's bit: all of it must be set
    return bool(flags & os.O_CREAT) or (tmpfile != 0 and flags & tmpfile == tmpfile)


def _with_retries(call: Callable[[], int]) -> int:
    for _ in range(_RETRIES - 1):
        with contextlib.suppress(BlockingIOError):
            return call()
    return call()


def _walk(dir_fd: int, parts: list[str], flags: int, mode: int) -> int:
    """The fallback: one O_NOFOLLOW open per name, each from the directory opened before it."""
    if len(parts) <= 1:
        return _last(dir_fd, parts[0] if parts else ".", flags, mode)
    with walked(dir_fd, parts[:-1]) as parent:
        return _last(parent, parts[-1], flags, mode)


def _last(parent: int, name: str, flags: int, mode: int) -> int:
    try:
        return os.open(name, flags, mode, dir_fd=parent)
    except OSError as exc:
        raise _as_link_refusal(exc, parent, name) from None


@contextlib.contextmanager
def walked(dir_fd: int, parts: list[str], *, create: bool = False) -> Iterator[int]:
    """The directory `parts` names beneath `dir_fd`, opened one name at a time without following
    a link; with `create`, missing folders are made on the way (as `mkdir -p` would)."""
    current = os.dup(dir_fd)
    try:
        for part in parts:
            step = _step(current, part, create=create)
            os.close(current)
            current = step
        yield current
    finally:
        os.close(current)


def _step(current: int, name: str, *, create: bool) -> int:
    try:
        return os.open(name, DIRECTORY, dir_fd=current)
    except FileNotFoundError:
        if not create:
            raise
    except OSError as exc:
        raise _as_link_refusal(exc, current, name) from None
    with contextlib.suppress(FileExistsError):  # made beside us meanwhile: opened below, or refused
        os.mkdir(name, 0o777, dir_fd=current)
    try:
        return os.open(name, DIRECTORY, dir_fd=current)
    except OSError as exc:
        raise _as_link_refusal(exc, current, name) from None


def _as_link_refusal(exc: OSError, parent: int, name: str) -> OSError:
    """ELOOP when `name` is a link: O_NOFOLLOW with O_DIRECTORY or O_PATH says ENOTDIR or opens the
    link itself, the kernel's resolution says ELOOP; both ways must say the same."""
    if exc.errno in (errno.ENOTDIR, errno.ENOENT):
        with contextlib.suppress(OSError):
            if stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode):
                return OSError(errno.ELOOP, "a symbolic link is on the way", name)
    return exc


def _not_a_link(fd: int, relative: str) -> int:
    """O_PATH with O_NOFOLLOW opens a final link as itself (without O_PATH it is ELOOP already):
    that is a refusal here too."""
    if stat.S_ISLNK(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.ELOOP, "a symbolic link is on the way", relative)
    return fd


def open_directory(path: str | os.PathLike[str]) -> int:
    """A handle to walk from, for a directory named in full by someone trusted (a resolved root):
    its last name is not followed."""
    return os.open(path, DIRECTORY)


def open_readable(dir_fd: int, relative: str) -> tuple[int, os.stat_result]:
    """`relative` beneath `dir_fd` opened for reading, and what it is: a regular file or a folder
    (scandir takes it). Anything else (a FIFO, socket or device) is EINVAL, found without waiting
    on a FIFO's writer."""
    fd = open_beneath(dir_fd, relative, os.O_RDONLY | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
            raise OSError(errno.EINVAL, "not a regular file or folder", relative)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def write_new_or_replace(dir_fd: int, name: str, data: bytes) -> bool:
    """Write `data` as the file `name` directly in the directory `dir_fd`: a new file is created
    (never through a link: O_EXCL); an existing regular file is replaced whole, through a
    temporary file renamed over it, keeping its mode and owner, so nobody ever sees half of it and
    a write never reaches another name of the same file. True when it replaced a file. Refuses a
    folder (EISDIR) and anything else but a file (EINVAL)."""
    if parts_of(name) != [name]:
        raise OSError(errno.EINVAL, "not one name in a directory", name)
    try:
        before = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        _write_new(dir_fd, name, data, _FILE_MODE)
        return False
    if stat.S_ISDIR(before.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
    if not stat.S_ISREG(before.st_mode):
        raise OSError(errno.EINVAL, "not a regular file", name)
    temporary = f".levelcode-{secrets.token_hex(8)}.tmp"  # short: a long name leaves no room for more
    _write_new(dir_fd, temporary, data, 0o600, like=before)  # private until it has its final mode
    try:
        os.rename(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=dir_fd)
        raise
    return True


_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _write_new(dir_fd: int, name: str, data: bytes, mode: int, *, like: os.stat_result | None = None) -> None:
    """Create `name` (it must not exist) holding `data`, with the mode and owner of `like`; a
    failure part way removes it again."""
    fd = os.open(name, _CREATE, mode, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "wb") as handle:
            if like is not None:
                _take_mode_and_owner(handle.fileno(), like)
            handle.write(data)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=dir_fd)
        raise


def _take_mode_and_owner(fd: int, like: os.stat_result) -> None:
    with contextlib.suppress(PermissionError):  # root keeps the owner; another user may not give it
        if (like.st_uid, like.st_gid) != (os.geteuid(), os.getegid()):
            os.fchown(fd, like.st_uid, like.st_gid)
    os.fchmod(fd, stat.S_IMODE(like.st_mode))
