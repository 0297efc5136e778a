"""The file tools raced end to end: one headless `levelcode run --autopilot` turn (nobody to ask)
whose model starts a background command that keeps exchanging a folder `d` of the workspace with a
symbolic link to a folder outside it (renameat2 RENAME_EXCHANGE), then writes `d/.bashrc-N` forty
times and reads `d/id_rsa` forty times. Load-bearing direction: no write lands in the outside folder
and no read returns the outside secret; a swap may only make a call fail. Each call lands inside or
fails, and the swapper is seen to swap (the calls land on both sides of it inside), so a guard
that resolves a name and opens it later shows up here: the old one let 19 and 23 of 40 out.

The background command runs in the sandbox like any autopilot command; the workspace is writable
there, so the exchange works inside it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.scripted_server import Reply, ToolCall
from tests.support.autopilot_runs import run_unchecked_autopilot
from tests.support.name_swapper import SCRIPT
from tests.support.sandbox import host_folder

pytestmark = pytest.mark.sandbox

CALLS = 40
SECRET = "-----BEGIN OUTSIDE SECRET-----"


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside the workspace holding a secret: what `l` points to."""
    with host_folder() as folder:
        target = folder / "target"
        target.mkdir()
        (target / "id_rsa").write_text(SECRET + "\n")
        yield target


def _batches(calls: list[ToolCall]) -> Iterator[list[ToolCall]]:
    """Five calls a model step: a turn has at most 60 steps."""
    for start in range(0, len(calls), 5):
        yield calls[start : start + 5]


def _steps() -> list[Any]:
    writes = [
        ToolCall("write_file", {"path": f"d/.bashrc-{n}", "content": f"pwned {n}\n"}) for n in range(CALLS)
    ]
    reads = [ToolCall("read_file", {"path": "d/id_rsa"}) for _ in range(CALLS)]
    return [
        Reply(tool_calls=(ToolCall("start_background_command", {"command": "python3 swap.py d l"}),)),
        Reply(tool_calls=(ToolCall("read_background_output", {"job_id": "bg1", "wait_seconds": 30}),)),
        *(Reply(tool_calls=tuple(batch)) for batch in _batches(writes + reads)),
        Reply(tool_calls=(ToolCall("write_file", {"path": "stop", "content": ""}),)),
        Reply(text="done"),
    ]


def test_a_folder_swapped_for_a_link_out_never_lets_a_write_or_read_through(
    tmp_path: Path, isolated_home: Path, outside: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "swap.py").write_text(SCRIPT)  # the hostile repository ships the swapper, `d` and `l`
    (workspace / "d").mkdir()
    (workspace / "l").symlink_to(outside)
    done, told = run_unchecked_autopilot(workspace, isolated_home, _steps(), home=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert "swapping" in told[1], told[:2]
    escaped = sorted(p.name for p in outside.iterdir() if p.name.startswith(".bashrc-"))
    leaked = [text for text in told if SECRET in text]
    folders = [workspace / name for name in ("d", "l") if not (workspace / name).is_symlink()]
    inside = [path for folder in folders for path in folder.glob(".bashrc-*")]
    report = json.dumps({"escaped": len(escaped), "leaked": len(leaked), "inside": len(inside)})
    assert not escaped, report
    assert not leaked, report
    assert inside, report  # some writes succeeded: the race was run, not refused wholesale
