"""Opening beneath a directory descriptor (platform/open_beneath.py), both ways it can be done: the
kernel's openat2 and the walk one name at a time that stands in for it; each case runs both, and
both must answer alike.

Load-bearing direction, must refuse: `..` (even one that comes back down), an absolute path, a
link on the way or at the end (one leading inside included: resolving links is the caller's work,
done before), a link to a parent, a FIFO (at once, never waiting for a writer), a write to a
folder, a FIFO or a link. Must pass: plain names at any depth, names with odd bytes, a missing
parent made on the way, a file replaced whole with its mode kept and nothing left behind.
"""

from __future__ import annotations

import errno
import os
import platform
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from levelcode.platform import open_beneath
from levelcode.platform.open_beneath import open_readable, walked, write_new_or_replace

ODD_NAMES = [
    "with space",
    "new\nline",
    "back\\slash",
    "-dash",
    "\udcff\udcfe not utf-8",
    "é",
    "*?[",
    "x" * 255,
]


@pytest.fixture(params=["kernel", "walk"])
def way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "walk":
        monkeypatch.setattr(open_beneath, "kernel_resolution", lambda: None)
    elif open_beneath.kernel_resolution() is None:
        pytest.skip("this kernel has no openat2")
    return str(request.param)


@pytest.fixture
def root(tmp_path: Path) -> Iterator[int]:
    base = tmp_path / "root"
    (base / "sub" / "deeper").mkdir(parents=True)
    (base / "a.txt").write_text("a\n")
    (base / "sub" / "deeper" / "b.txt").write_text("b\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("secret\n")
    (base / "link_in").symlink_to("a.txt")
    (base / "link_sub").symlink_to("sub")
    (base / "link_out").symlink_to(outside)
    (base / "link_file_out").symlink_to(outside / "secret")
    (base / "sub" / "up").symlink_to("..")
    (base / "sub" / "abs_up").symlink_to(base)
    os.mkfifo(base / "fifo")
    fd = open_beneath.open_directory(base)
    yield fd
    os.close(fd)


def _read(root: int, relative: str) -> bytes:
    fd, _ = open_readable(root, relative)
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def _errno(call: Callable[[], object]) -> int | None:
    """The errno `call` fails with; None when it does not fail."""
    try:
        call()
    except OSError as refused:
        return refused.errno
    return None


REFUSED = {
    "..": errno.EXDEV,
    "../outside/secret": errno.EXDEV,
    "sub/../a.txt": errno.EXDEV,
    "/etc/passwd": errno.EXDEV,
    "link_in": errno.ELOOP,
    "link_sub/deeper/b.txt": errno.ELOOP,
    "link_out/secret": errno.ELOOP,
    "link_file_out": errno.ELOOP,
    "sub/up/a.txt": errno.ELOOP,
    "sub/abs_up/a.txt": errno.ELOOP,
    "fifo": errno.EINVAL,
    "missing/a.txt": errno.ENOENT,
    "a.txt/below": errno.ENOTDIR,
}


@pytest.mark.timeout(30)  # a FIFO opened to read would wait for a writer for ever
@pytest.mark.parametrize("relative", REFUSED)
def test_what_would_leave_or_follow_is_refused_alike_both_ways(way: str, root: int, relative: str) -> None:
    assert _errno(lambda: _read(root, relative)) == REFUSED[relative]


@pytest.mark.parametrize(
    ("relative", "content"),
    [("a.txt", b"a\n"), ("./sub//deeper/b.txt", b"b\n"), ("sub/deeper/./b.txt", b"b\n")],
)
def test_plain_names_are_opened(way: str, root: int, relative: str, content: bytes) -> None:
    assert _read(root, relative) == content


def test_a_folder_one_may_search_but_not_list_is_passed_through(way: str, root: int, tmp_path: Path) -> None:
    """The git scan's lesson: a folder with only search permission (0311) still holds files one can
    open by name; as an unprivileged user this is the case that matters (root reads everything)."""
    sub = tmp_path / "root" / "sub"
    sub.chmod(0o311)
    try:
        assert _read(root, "sub/deeper/b.txt") == b"b\n"
        with walked(root, ["sub", "deeper", "made"], create=True) as folder:
            assert write_new_or_replace(folder, "f.txt", b"f\n") is False
    finally:
        sub.chmod(0o755)
    assert (sub / "deeper" / "made" / "f.txt").read_text() == "f\n"


def test_a_folder_is_opened_for_listing(way: str, root: int) -> None:
    fd, info = open_readable(root, "sub")
    try:
        assert stat.S_ISDIR(info.st_mode)
        assert sorted(os.listdir(fd)) == ["abs_up", "deeper", "up"]
    finally:
        os.close(fd)


@pytest.mark.parametrize("name", ODD_NAMES)
def test_names_with_odd_bytes_are_written_and_read(way: str, root: int, name: str) -> None:
    with walked(root, ["sub", name], create=True) as folder:
        assert write_new_or_replace(folder, name, b"odd\n") is False
        assert write_new_or_replace(folder, name, b"odder\n") is True
    assert _read(root, f"sub/{name}/{name}") == b"odder\n"


def test_missing_parents_are_made_but_never_through_a_link(way: str, root: int, tmp_path: Path) -> None:
    with walked(root, ["new", "deep", "er"], create=True) as folder:
        write_new_or_replace(folder, "f.txt", b"made\n")
    assert (tmp_path / "root" / "new" / "deep" / "er" / "f.txt").read_text() == "made\n"
    for parts in (["link_out", "x"], ["sub", "up", "x"], ["link_sub"]):

        def make(parts: list[str] = parts) -> None:
            with walked(root, parts, create=True):
                pass

        assert _errno(make) == errno.ELOOP, parts
    assert sorted(p.name for p in (tmp_path / "outside").iterdir()) == ["secret"]


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("name", "code"),
    [("sub", errno.EISDIR), ("fifo", errno.EINVAL), ("link_out", errno.EINVAL), ("sub/deeper", errno.EINVAL)],
)
def test_a_write_refuses_a_folder_a_fifo_a_link_and_a_path(way: str, root: int, name: str, code: int) -> None:
    assert _errno(lambda: write_new_or_replace(root, name, b"x")) == code


def test_a_replaced_file_keeps_its_mode_and_a_reader_sees_all_old_or_all_new(
    way: str, root: int, tmp_path: Path
) -> None:
    target = tmp_path / "root" / "a.txt"
    target.chmod(0o640)
    with target.open("rb") as before:
        assert write_new_or_replace(root, "a.txt", b"new content\n") is True
        assert before.read() == b"a\n"  # the old file, whole: never truncated under a reader
    assert target.read_bytes() == b"new content\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in target.parent.iterdir() if p.name.startswith(".levelcode")) == []


def test_a_failed_replace_leaves_the_file_and_no_temporary(
    way: str, root: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full_disk(*_: object, **__: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "rename", full_disk)
    with pytest.raises(OSError, match="No space"):
        write_new_or_replace(root, "a.txt", b"lost?\n")
    assert (tmp_path / "root" / "a.txt").read_text() == "a\n"
    assert sorted(p.name for p in (tmp_path / "root").iterdir() if p.name.startswith(".levelcode")) == []


def test_this_kernel_has_openat2_when_it_is_5_6_or_later() -> None:
    release = tuple(int(part) for part in platform.release().split(".")[:2] if part.isdigit())
    if platform.system() != "Linux" or release < (5, 6):
        pytest.skip(f"{platform.system()} {platform.release()}: the walk is the way here")
    assert open_beneath.kernel_resolution() is not None


@pytest.mark.parametrize(
    ("machine", "pointer", "number"),
    [
        ("x86_64", 8, 437),
        ("x86_64", 4, 0x40000000 + 437),
        ("i686", 4, 437),
        ("aarch64", 8, 437),
        ("armv7l", 4, 437),
        ("riscv64", 8, 437),
        ("ppc64le", 8, 437),
        ("s390x", 8, 437),
        ("loongarch64", 8, 437),
        ("alpha", 8, 547),
        ("mips64", 8, None),
        ("vax", 4, None),
    ],
)
def test_the_syscall_number_per_architecture(machine: str, pointer: int, number: int | None) -> None:
    assert open_beneath._syscall_number(machine, pointer) == number
