"""A result over the cap is saved whole to a 0600 file (0700 folder, LevelCode's state) that the
model pages through with read_file — the one file read_file may read outside the workspace.

Load-bearing direction: the exception is exactly this session's saved files. Must refuse: another
file in the results folder (another session's, or one planted there), a neighbour reached with
`..`, a workspace link to a file the session did not save, the results folder itself, and writing
or editing a saved file. Must pass: the saved file by the path the note names, through a link in
the workspace, and page by page to its end with nothing lost (a 3 MB one-line result included).
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

from levelcode.core.errors import ToolError
from levelcode.mcp.live.hub import McpHub
from levelcode.mcp.live.session_hub import make_hub
from levelcode.platform import paths
from levelcode.tools.base import ToolContext
from levelcode.tools.file_edit import edit_file, write_file
from levelcode.tools.file_read import list_directory, read_file
from tests.support.memory_servers import MemoryServers

NOTE = re.compile(
    r"\[result cut: showing 40,000 of ([\d,]+) characters; the whole result \(([\d.]+ MB|[\d.]+ KB)\) "
    r"is saved in (\S+): read it with read_file, start_line/end_line\]$"
)


async def huge_result(servers: MemoryServers, tmp_path: Path, text: str) -> tuple[McpHub, str]:
    """What the fault server (in memory) echoing `text` gives the model, from a hub as LevelCode builds it."""
    hub = make_hub(tmp_path)
    hub.transports = servers.plan
    await hub.start([servers.add()])
    outcome = await hub.call("fault", "echo", {"message": text})
    await hub.reap_all()
    assert outcome.saved is not None
    return hub, outcome.text


async def read_all(ctx: ToolContext, path: str) -> str:
    """Every line of the file, page after page, as the model would read it."""
    lines: list[str] = []
    start = 1
    while True:
        page = await read_file(ctx, {"path": path, "start_line": start})
        more = re.search(r"call read_file with start_line=(\d+) to read on\]$", page)
        body = page.rsplit("\n", 1)[0] if more else page
        lines.extend(line.split("\t", 1)[1] for line in body.split("\n"))
        if more is None:
            return "\n".join(lines)
        start = int(more.group(1))


async def test_a_huge_one_line_result_is_saved_and_read_back_whole_page_by_page(
    memory_servers: MemoryServers, tmp_path: Path
) -> None:
    whole = json.dumps({"rows": [{"id": i, "name": f"row {i}"} for i in range(90_000)]})
    assert len(whole) > 2_300_000
    assert "\n" not in whole
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    hub, text = await huge_result(memory_servers, tmp_path, whole)
    match = NOTE.search(text)
    assert match is not None, text[-400:]
    assert text.startswith(whole[:40_000])
    assert match.group(2) == f"{len(whole) / 1024 / 1024:.1f} MB"
    saved = Path(match.group(3))
    assert saved.parent == paths.results_dir()
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert stat.S_IMODE(saved.parent.stat().st_mode) == 0o700
    ctx = ToolContext(workspace=workspace, saved_results=hub.spills)
    assert (await read_all(ctx, str(saved))).replace("\n", "") == whole


async def test_read_file_may_read_this_sessions_saved_result_and_nothing_beside_it(
    memory_servers: MemoryServers, tmp_path: Path
) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    hub, text = await huge_result(memory_servers, tmp_path, "".join(f"{i:07d}\n" for i in range(6000)))
    saved = Path(text.rsplit("is saved in ", 1)[1].split(": read it", 1)[0])
    other = saved.parent / "20250101-000000-other-session.txt"
    other.write_text("another session's result\n")
    (workspace / "to_saved").symlink_to(saved)
    (workspace / "to_other").symlink_to(other)
    ctx = ToolContext(workspace=workspace, saved_results=hub.spills)

    # must pass
    assert (await read_file(ctx, {"path": str(saved), "end_line": 1})) == "     1\t0000000"
    assert (await read_file(ctx, {"path": "to_saved", "start_line": 6000})) == "  6000\t0005999"

    # must refuse
    for path in (str(other), "to_other", f"{saved.parent}/../trust.json", f"{saved}/../{other.name}"):
        with pytest.raises(ToolError, match="outside the directories this session may use"):
            await read_file(ctx, {"path": path})
    with pytest.raises(ToolError, match="outside the directories"):
        await list_directory(ctx, {"path": str(saved.parent)})
    with pytest.raises(ToolError, match="outside the directories"):
        await write_file(ctx, {"path": str(saved), "content": "planted"})
    with pytest.raises(ToolError, match="outside the directories"):
        await edit_file(ctx, {"path": str(saved), "old_string": "0000000", "new_string": "x"})
    fresh = ToolContext(workspace=workspace)  # a context that was given no saved results
    with pytest.raises(ToolError, match="outside the directories"):
        await read_file(fresh, {"path": str(saved)})
