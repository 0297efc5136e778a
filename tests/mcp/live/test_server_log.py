"""A server's log notifications. Load-bearing direction: nothing below the user's level reaches
the file, control characters never reach it raw, and each error-level message is handed to a
view once. The second corpus: messages at or above the level are written, one line each."""

from __future__ import annotations

from pathlib import Path

from levelcode.mcp.live.server_log import ServerLog


def test_levels_escaping_and_errors_once(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "s.log"
    log = ServerLog(path, "warning")
    log.record({"level": "info", "data": "quiet"})
    log.record({"level": "warning", "logger": "db", "data": "slow\x1b[2Jquery"})
    log.record({"level": "error", "data": {"error": "down"}})
    log.record({"level": "error", "data": {"error": "down"}})
    log.record({"level": "bogus", "data": "unknown levels count as info"})
    log.close()
    lines = path.read_text().splitlines()
    assert len(lines) == 3
    assert "quiet" not in path.read_text()
    assert "\x1b" not in path.read_text()
    assert lines[0].endswith("[mcp warning] db: slow\\u001b[2Jquery")
    assert lines[1].endswith('[mcp error] {\\"error\\": \\"down\\"}')
    assert log.take_errors() == ('error: {"error": "down"}',)
    assert log.take_errors() == ()
    assert (path.parent.stat().st_mode & 0o777) == 0o700
    assert (path.stat().st_mode & 0o777) == 0o600
