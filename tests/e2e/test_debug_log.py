"""The debug log (`LEVELCODE_DEBUG=1`) through the real CLI. Load-bearing direction: a tool
argument never reaches state/logs/debug.log in clear — also not for a call the gate refused.
The second corpus: the refusal itself is logged, with the argument's key and the reason."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.fakes.scripted_server import Reply, ToolCall
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, provider_env, provider_flags, write_settings
from tests.support.servers import FAULT_SERVER

SECRET = "ghp_REFUSED-CALL-SECRET-0123456789"


def test_a_refused_calls_arguments_are_masked_in_the_debug_log(isolated_home: Path, tmp_path: Path) -> None:
    entry = {
        "command": sys.executable,
        "args": [str(FAULT_SERVER)],
        "env": {"FAULT_PID_FILE": str(tmp_path / "pids")},
    }
    write_settings(isolated_home, {"mcpServers": {"fault": entry}})  # nothing allowed: headless refuses
    steps = [Reply(tool_calls=(ToolCall("fault__count_chars", {"token": SECRET}),)), Reply(text="ok")]
    with OPENAI.fake(steps) as server:
        argv = [
            str(LEVELCODE),
            "run",
            "-C",
            str(tmp_path),
            *provider_flags("openai", server.base_url, OPENAI.model),
        ]
        done = subprocess.run(
            [*argv, "go"],
            capture_output=True,
            text=True,
            env=provider_env(isolated_home, "openai", LEVELCODE_DEBUG="1"),
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    log = (isolated_home / "state" / "logs" / "debug.log").read_text(encoding="utf-8")
    refusal = next(line for line in log.splitlines() if "mcp call fault__count_chars refused" in line)
    assert "'token': '<masked>'" in refusal
    assert SECRET not in log
    assert SECRET not in done.stdout + done.stderr
