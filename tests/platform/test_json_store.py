"""JSON store. Load-bearing direction: a file that is not a JSON object is never overwritten (the
update raises and the bytes stay), a failed write leaves the old file whole (atomic replace, no
temporary left behind), the result has exactly the mode asked for whatever the umask, and the
update runs under the lock, so concurrent writers from several processes all land. The second
corpus: a missing, blank or `null` file reads as an empty object and is written normally."""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from levelcode.platform.json_store import (
    JsonDoc,
    UnreadableFile,
    locked,
    read_json_object,
    update_json,
    write_atomically,
)
from tests.support.processes import run_together

REPO_ROOT = Path(__file__).resolve().parent.parent
WAIT = 60.0

UNREADABLE = {
    "garbage bytes": b"\x00\xff\xfe\x80garbage",
    "not json": b"settings = yes\n",
    "trailing comma": b'{"a": 1,}',
    "truncated": b'{"a": {"b": ',
    "comment": b'// mine\n{"a": 1}',
    "byte order mark": b'\xef\xbb\xbf{"a": 1}',
    "a list": b'[{"a": 1}]',
    "a string": b'"a"',
    "a number": b"42",
    "too deep": b"[" * 100_000 + b"]" * 100_000,
}

EMPTY = {"blank": b"", "whitespace": b"  \n\t", "null": b"null", "empty object": b"{}"}


@pytest.fixture
def umask() -> Iterator[Callable[[int], int]]:
    """os.umask, with the process's umask put back afterwards."""
    before = os.umask(0o022)
    os.umask(before)
    yield os.umask
    os.umask(before)


def _temporaries(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize("content", UNREADABLE.values(), ids=UNREADABLE.keys())
def test_a_file_that_is_not_a_json_object_is_unreadable(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(content)
    with pytest.raises(UnreadableFile):
        read_json_object(path)


def test_a_directory_in_place_of_the_file_is_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.mkdir()
    with pytest.raises(UnreadableFile, match="cannot be read"):
        read_json_object(path)


@pytest.mark.parametrize("content", UNREADABLE.values(), ids=UNREADABLE.keys())
def test_update_never_overwrites_an_unreadable_file(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(content)
    changed: list[JsonDoc] = []
    with pytest.raises(UnreadableFile):
        update_json(path, changed.append)
    assert path.read_bytes() == content
    assert changed == []
    assert _temporaries(tmp_path) == []


@pytest.mark.parametrize("content", EMPTY.values(), ids=EMPTY.keys())
def test_blank_and_null_files_read_as_an_empty_object_and_update(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(content)
    assert read_json_object(path) == {}
    update_json(path, lambda doc: doc.update(a=1))
    assert json.loads(path.read_text(encoding="utf-8")) == {"a": 1}


def test_a_missing_file_reads_as_empty_and_update_creates_it_and_its_directory(tmp_path: Path) -> None:
    path = tmp_path / "new" / "dir" / "doc.json"
    assert read_json_object(path) == {}
    assert not path.parent.exists()
    result = update_json(path, lambda doc: doc.update(name="ü ✓"))
    assert result == {"name": "ü ✓"}
    text = path.read_text(encoding="utf-8")
    assert json.loads(text) == {"name": "ü ✓"}
    assert "ü ✓" in text  # written as text, not \u escapes, so a hand edit stays readable
    assert text.endswith("\n")


def test_update_keeps_what_the_change_does_not_touch(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    before = {"z": [1, {"deep": None}], "a": "text", "n": 1.5, "flag": False}
    path.write_text(json.dumps(before), encoding="utf-8")
    update_json(path, lambda doc: doc.update(added=True))
    after = json.loads(path.read_text(encoding="utf-8"))
    assert after == {**before, "added": True}
    assert list(after) == [*before, "added"]


@pytest.mark.parametrize("mask", [0o000, 0o022, 0o077, 0o777])
@pytest.mark.parametrize("mode", [0o600, 0o644])
def test_the_file_gets_exactly_the_mode_asked_for_whatever_the_umask(
    tmp_path: Path, umask: Callable[[int], int], mask: int, mode: int
) -> None:
    path = tmp_path / "doc.json"
    umask(mask)
    update_json(path, lambda doc: doc.update(a=1), mode=mode)
    assert path.stat().st_mode & 0o777 == mode


def test_the_default_mode_is_owner_only_even_over_a_world_readable_file(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text("{}", encoding="utf-8")
    path.chmod(0o644)
    update_json(path, lambda doc: doc.update(secret="x"))
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_reader_holding_the_old_file_sees_it_whole_after_an_update(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    old = json.dumps({"old": "x" * 10_000})
    path.write_text(old, encoding="utf-8")
    with path.open(encoding="utf-8") as reader:
        update_json(path, lambda doc: doc.update(old="y"))
        assert reader.read() == old
    assert json.loads(path.read_text(encoding="utf-8")) == {"old": "y"}


def test_a_write_that_fails_half_way_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text('{"kept": true}', encoding="utf-8")
    unserialisable = {"first": "x" * 10_000, "then": object()}
    with pytest.raises(TypeError):
        write_atomically(path, unserialisable)  # json.dump gets part way, then fails
    assert path.read_text(encoding="utf-8") == '{"kept": true}'
    assert _temporaries(tmp_path) == []


def test_a_change_that_raises_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text('{"kept": true}', encoding="utf-8")

    def change(doc: JsonDoc) -> None:
        doc["half"] = "done"
        raise RuntimeError("change failed")

    with pytest.raises(RuntimeError, match="change failed"):
        update_json(path, change)
    assert path.read_text(encoding="utf-8") == '{"kept": true}'
    assert _temporaries(tmp_path) == []


def test_the_change_runs_while_the_lock_is_held(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    lock_file = tmp_path / "doc.json.lock"
    seen: list[str] = []

    def change(doc: JsonDoc) -> None:
        other = os.open(lock_file, os.O_RDWR)  # a second open file, as another process would have
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            seen.append("locked")
        finally:
            os.close(other)

    update_json(path, change)
    assert seen == ["locked"]
    other = os.open(lock_file, os.O_RDWR)
    try:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released afterwards
    finally:
        os.close(other)
    assert lock_file.stat().st_mode & 0o777 == 0o600


def test_the_lock_is_released_when_the_body_raises(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    with pytest.raises(RuntimeError), locked(path):
        raise RuntimeError("inside")
    other = os.open(tmp_path / "doc.json.lock", os.O_RDWR)
    try:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(other)


COUNTER = """
import sys
from pathlib import Path
from levelcode.platform.json_store import update_json

path, worker, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])

def bump(doc):
    doc["count"] = doc.get("count", 0) + 1
    doc.setdefault("workers", {})[worker] = doc.get("workers", {}).get(worker, 0) + 1

print("ready", flush=True)
sys.stdin.readline()
for _ in range(rounds):
    update_json(path, bump)
"""


def test_updates_from_several_processes_at_once_all_land(tmp_path: Path) -> None:
    path = tmp_path / "state" / "counter.json"
    workers, rounds = 6, 25
    run_together([[COUNTER, str(path), f"w{i}", str(rounds)] for i in range(workers)])
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["count"] == workers * rounds
    assert doc["workers"] == {f"w{i}": rounds for i in range(workers)}
    assert path.stat().st_mode & 0o777 == 0o600
    assert _temporaries(path.parent) == []
