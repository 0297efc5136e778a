"""One headless autopilot turn of the real CLI against the scripted OpenAI fake: what the attack
tests drive (with the command check out of the way, tests/support/unchecked_levelcode.py) and
what the tests of ordinary work drive (the CLI as installed, its command check included).
Returns the finished process and every tool result the model was told, in order. Also any other
CLI command, as installed or as the positive control's build that confines nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.fakes.fake_openai import tool_messages
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, cli_env, provider_env, provider_flags
from tests.support.unchecked_levelcode import SWITCH

ROOT = Path(__file__).resolve().parents[2]
UNCHECKED = [sys.executable, "-m", "tests.support.unchecked_levelcode"]


def run_unchecked_autopilot(
    workspace: Path, levelcode_home: Path, steps: list[Any], *, home: Path, sandbox: bool = True, **env: str
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """`levelcode run --autopilot --json go` in `workspace` with HOME at `home` (and `env`), every
    command called safe; `sandbox=False` is the positive control, where the sandbox confines nothing."""
    extra = {"HOME": str(home), **env}
    if not sandbox:
        extra[SWITCH] = "off"
    return _autopilot_turn(UNCHECKED, workspace, levelcode_home, steps, extra)


def run_autopilot(
    workspace: Path, levelcode_home: Path, steps: list[Any], *, home: Path, **env: str
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """The same turn through the installed `levelcode`, as a user runs it."""
    return _autopilot_turn([str(LEVELCODE)], workspace, levelcode_home, steps, {"HOME": str(home), **env})


def run_cli_output(args: list[str], levelcode_home: Path, *, sandbox: bool = True, **env: str) -> str:
    """`levelcode ARGS` (stdout and stderr); `sandbox=False`: the build whose sandbox confines
    nothing and moves nothing."""
    program = [str(LEVELCODE)] if sandbox else UNCHECKED
    done = subprocess.run(
        [*program, *args],
        capture_output=True,
        text=True,
        env=cli_env(levelcode_home, **env, **({} if sandbox else {SWITCH: "off"})),
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    return done.stdout + done.stderr


def _autopilot_turn(
    program: list[str], workspace: Path, levelcode_home: Path, steps: list[Any], env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    with OPENAI.fake(steps) as server:
        command = [
            *program,
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
            env=provider_env(levelcode_home, "openai", **env),
            cwd=ROOT,
            timeout=180,
            check=False,
        )
        told = [m["content"] for request in server.requests[1:] for m in tool_messages(request)]
    return done, told
