"""The hub as LevelCode builds it, with no limit passed in (its server: the fault server, in
memory). Load-bearing direction: a result over the default cap (40,000 characters) never reaches
the model whole — it is cut, and the whole text is spilled to a file under the state dir's
results/ that the note names. The second corpus: a result under the cap arrives exactly as the
server sent it."""

from __future__ import annotations

import re
from pathlib import Path

from levelcode.mcp.live.session_hub import make_hub
from levelcode.platform import paths
from tests.support.memory_servers import MemoryServers


async def test_a_default_hub_cuts_a_41000_character_result_and_spills_it_whole(
    memory_servers: MemoryServers, tmp_path: Path
) -> None:
    hub = make_hub(tmp_path)
    hub.transports = memory_servers.plan
    await hub.start([memory_servers.add()])
    try:
        whole = "".join(f"{i:07d}\n" for i in range(41_000 // 8)) + "end"
        assert len(whole) > 41_000
        outcome = await hub.call("fault", "echo", {"message": whole})
        text, is_error = outcome.text, outcome.is_error
        outcome = await hub.call("fault", "echo", {"message": "x" * 39_000})
        short, _ = outcome.text, outcome.is_error
    finally:
        await hub.reap_all()
    assert not is_error
    assert text.startswith(whole[:40_000])
    assert whole[:40_001] not in text
    match = re.search(
        r"\[result cut: showing 40,000 of ([\d,]+) characters; the whole result \(40\.0 KB\) is saved in "
        r"(\S+): read it with read_file, start_line/end_line\]",
        text,
    )
    assert match is not None, text[-300:]
    assert match.group(1) == f"{len(whole):,}"
    spilled = Path(match.group(2))
    assert spilled.parent == paths.results_dir()
    assert spilled.read_text(encoding="utf-8") == whole
    assert short == "x" * 39_000
