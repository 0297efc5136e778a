"""`levelcode sandbox -- CMD ARGS...`: one command in the sandbox exactly as the agent runs its
commands (same policy, spawn path and environment), so a user can see what the sandbox allows.

Git works inside; git control entries the command planted (a new `.git`, a hooks folder or config
where a git dir had none, a rebase todo with new exec lines, a file the user's git config names)
are moved out of the workspace afterwards, and stderr says where to.

Exit codes: the command's own status (128+N when signal N ended it); 2 when there is no sandbox
or nothing to run; 130 on Ctrl-C. The command's output (stdout and stderr merged, as the agent
gets it) goes to stdout; LevelCode's own lines go to stderr.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from levelcode.cli.aio import run_command
from levelcode.cli.printing import fail, say, workspace_of
from levelcode.cli.start.policy_flags import refuse_forbidden_flags
from levelcode.cli.start.sandbox_choice import extra_roots, session_confinement
from levelcode.core.errors import ConfigError
from levelcode.platform.settings_files import load_settings
from levelcode.sandbox.confinement import planted_git_control
from levelcode.sandbox.diagnosis import sandbox_refusals
from levelcode.sandbox.policy import SandboxPolicy, describe_policy
from levelcode.tools.base import ToolContext
from levelcode.tools.command_sandbox import command_confinement
from levelcode.tools.process_group import ShellProcess

TAIL_LIMIT = 16_000  # bytes of the latest output kept to tell what the sandbox blocked
USAGE = (
    "levelcode sandbox [--allow-network] [--allow-host HOST] [--add-dir DIR] [-C DIR] [-v] -- CMD [ARGS...]"
)


def run_sandbox_command(args: argparse.Namespace) -> int:
    argv: list[str] = list(args.argv)
    if not argv:
        return fail("sandbox: name the command to run", 2, f"usage: {USAGE}")
    workspace = workspace_of(args)
    settings = load_settings(workspace)
    try:
        refuse_forbidden_flags(args, settings)
    except ConfigError as exc:
        return fail(str(exc), 2)
    confinement = session_confinement(args, settings)
    if not confinement.available:
        return fail(f"no sandbox on this machine: {confinement.reason}", 2)
    ctx = ToolContext(workspace, extra_roots=extra_roots(args, settings), sandbox=confinement)
    confined = command_confinement(ctx)
    assert confined is not None  # available, checked above
    policy, wrap = confined
    if args.verbose or sys.stderr.isatty():
        say(describe_policy(policy, confinement.host.home), err=True)
    tail = bytearray()

    def write(chunk: bytes) -> None:
        tail.extend(chunk)
        del tail[: max(0, len(tail) - TAIL_LIMIT)]
        sys.stdout.buffer.write(chunk)
        sys.stdout.buffer.flush()

    async def main() -> int:
        process = await ShellProcess.start(shlex.join(argv), workspace, write, wrap=wrap)
        try:
            await process.wait()
        finally:
            await process.stop()
            for line in planted_git_control(policy):  # also after Ctrl-C: nothing planted stays
                say(line, err=True)
        return _exit_status(process.returncode, tail, policy)

    return run_command(main)


def _exit_status(returncode: int | None, tail: bytearray, policy: SandboxPolicy) -> int:
    code = 1 if returncode is None else 128 - returncode if returncode < 0 else returncode
    for refusal in sandbox_refusals(tail.decode("utf-8", errors="replace"), code, policy):
        say(refusal, err=True)
    return code
