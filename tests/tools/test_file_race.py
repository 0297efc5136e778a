"""The file tools against a process that keeps exchanging a folder `d` of the workspace with a
symbolic link `l` to a folder outside it (tests/support/name_swapper.py), 1,000 calls a tool:
read_file, write_file, edit_file, list_directory, find_files, search_files, `@path` (a file and a
folder), and read_file of a saved result whose file is exchanged with a link to the secret.

Load-bearing direction: 0 accesses outside — no call creates or changes anything in the outside
folder, and no call returns its secret or the name only it holds. A swap may make a call fail.
Each test also sees calls succeed inside (the race ran, it was not refused wholesale), and runs
twice: with the kernel's openat2, and with the walk one name at a time that stands in for it
where the kernel lacks it.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from levelcode.core.errors import ToolError
from levelcode.platform.spill_files import SpillFiles
from levelcode.tools.base import ToolContext
from levelcode.tools.file_edit import edit_file, write_file
from levelcode.tools.file_mentions import attach_path
from levelcode.tools.file_read import list_directory, read_file
from levelcode.tools.file_search import find_files, search_files
from tests.support.name_swapper import swapping

CALLS = 1000
SECRET = "OUTSIDE-SECRET-7f3a"
ONLY_OUTSIDE = "only-outside-entry"


@dataclass(frozen=True)
class Scene:
    ctx: ToolContext
    outside: Path
    inside: int  # the real folder `d` (or `l`, whichever name it has now), held open
    saved: Path  # a saved result this session may read

    def outside_state(self) -> dict[str, bytes]:
        return {path.name: path.read_bytes() for path in self.outside.iterdir()}


@pytest.fixture(params=["kernel", "walk"])
def resolution(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """openat2 as this kernel has it, or the walk forced as where the kernel lacks it."""
    if request.param == "walk":
        from levelcode.platform import open_beneath

        monkeypatch.setattr(open_beneath, "kernel_resolution", lambda: None)
    return str(request.param)


@pytest.fixture
def scene(tmp_path: Path, resolution: str) -> Iterator[Scene]:
    workspace, outside, results = tmp_path / "ws", tmp_path / "outside", tmp_path / "results"
    for folder in (workspace / "d", outside, results):
        folder.mkdir(parents=True)
    (outside / "secret").write_text(f"TOKEN {SECRET}\n")
    (outside / ONLY_OUTSIDE).write_text(f"{SECRET}\n")
    (workspace / "d" / "secret").write_text("TOKEN inside\n")
    (workspace / "l").symlink_to(outside)
    saved = results / "saved.txt"
    saved.write_text("the saved result\n")
    (results / "decoy").symlink_to(outside / "secret")
    spills = SpillFiles()
    spills.add(saved)
    inside = os.open(workspace / "d", os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield Scene(ToolContext(workspace=workspace, saved_results=spills), outside, inside, saved)
    finally:
        os.close(inside)


Call = Callable[[Scene, int], Awaitable[str]]


async def _race(scene: Scene, call: Call, leaked: Callable[[str], bool], swap: tuple[Path, str, str]) -> None:
    """`call` 1,000 times while `swap` runs; fails on any access outside, or on no success inside."""
    before = scene.outside_state()
    escapes: list[str] = []
    crashes: list[str] = []
    succeeded = 0
    with swapping(*swap):
        for n in range(CALLS):
            try:
                said = await call(scene, n)
                succeeded += 1
            except ToolError as refused:
                said = str(refused)
            except Exception as crash:  # the loop would say "failed unexpectedly": a failure, not clean
                said = repr(crash)
                crashes.append(said)
            if leaked(said) or scene.outside_state() != before:
                escapes.append(f"call {n}: {said[:200]}")
                _restore(scene.outside, before)
    assert not escapes, f"{len(escapes)} of {CALLS} calls reached outside; first: {escapes[:3]}"
    assert not crashes, f"{len(crashes)} calls failed with no clear error; first: {crashes[:3]}"
    assert succeeded, "no call succeeded: the race was not run"


def _restore(folder: Path, state: dict[str, bytes]) -> None:
    for path in folder.iterdir():
        if path.name not in state:
            path.unlink()
    for name, content in state.items():
        (folder / name).write_bytes(content)


def _folder_swap(scene: Scene) -> tuple[Path, str, str]:
    return scene.ctx.workspace, "d", "l"


def _shows_secret(said: str) -> bool:
    return SECRET in said or ONLY_OUTSIDE in said


async def _read(scene: Scene, n: int) -> str:
    return await read_file(scene.ctx, {"path": "d/secret"})


async def _write(scene: Scene, n: int) -> str:
    return await write_file(scene.ctx, {"path": f"d/new-{n}.txt", "content": "planted\n"})


async def _edit(scene: Scene, n: int) -> str:
    fd = os.open("secret", os.O_WRONLY | os.O_TRUNC, dir_fd=scene.inside)  # the inside file, reset
    os.write(fd, b"TOKEN inside\n")
    os.close(fd)
    return await edit_file(scene.ctx, {"path": "d/secret", "old_string": "TOKEN", "new_string": "EDITED"})


async def _list(scene: Scene, n: int) -> str:
    return await list_directory(scene.ctx, {"path": "d"})


async def _find(scene: Scene, n: int) -> str:
    return await find_files(scene.ctx, {"pattern": "**/*"})


async def _search(scene: Scene, n: int) -> str:
    return await search_files(scene.ctx, {"pattern": "TOKEN|SECRET", "path": "d"})


async def _mention_file(scene: Scene, n: int) -> str:
    return attach_path(scene.ctx, "d/secret").text


async def _mention_folder(scene: Scene, n: int) -> str:
    return attach_path(scene.ctx, "d").text


TOOLS: dict[str, Call] = {
    "read_file": _read,
    "write_file": _write,
    "edit_file": _edit,
    "list_directory": _list,
    "find_files": _find,
    "search_files": _search,
    "@path file": _mention_file,
    "@path folder": _mention_folder,
}


@pytest.mark.parametrize("tool", TOOLS)
async def test_a_folder_swapped_for_a_link_out_is_never_reached_through(scene: Scene, tool: str) -> None:
    await _race(scene, TOOLS[tool], _shows_secret, _folder_swap(scene))


async def test_a_saved_result_swapped_for_a_link_to_a_secret_is_never_read(scene: Scene) -> None:
    async def read_saved(scene: Scene, n: int) -> str:
        return await read_file(scene.ctx, {"path": str(scene.saved)})

    await _race(scene, read_saved, _shows_secret, (scene.saved.parent, "saved.txt", "decoy"))
