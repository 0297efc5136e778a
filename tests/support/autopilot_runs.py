"""One headless autopilot turn of the real CLI with the command check out of the way
(tests/support/unchecked_levelcode.py), against the scripted OpenAI fake: what the attack tests
drive. Returns the finished process and every tool result the model was told, in order."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.fakes.fake_openai import tool_messages
from tests.providers.support import OPENAI
from tests.support.cli import provider_env, provider_flags
from tests.support.unchecked_levelcode import SWITCH

ROOT = Path(__file__).resolve().parents[2]


def run_unchecked_autopilot(
    workspace: Path, levelcode_home: Path, steps: list[Any], *, home: Path, sandbox: bool = True, **env: str
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """`levelcode run --autopilot --json go` in `workspace` with HOME at `home` (and `env`);
    `sandbox=False` is the positive control, where the sandbox confines nothing."""
    extra = {"HOME": str(home), **env}
    if not sandbox:
        extra[SWITCH] = "off"
    with OPENAI.fake(steps) as server:
        command = [
            sys.executable,
            "-m",
            "tests.support.unchecked_levelcode",
            "run",
            "-C",
            str(workspace),
            *provider_flags("openai", server.base_url, OPENAI.model),
            "--autopilot",
            "--json",
            "go",
        ]
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            env=provider_env(levelcode_home, "openai", **extra),
            cwd=ROOT,
            timeout=180,
            check=False,
        )
        told = [m["content"] for request in server.requests[1:] for m in tool_messages(request)]
    return done, told
