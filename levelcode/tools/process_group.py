"""Shell commands in their own process group, and stopping that whole group.

Every command runs as `bash -c` in a new session, so its children and grandchildren share one
process group we can signal at once: SIGTERM, a short grace, then SIGKILL. A process that leaves
the group on purpose (setsid, double-fork daemons) is beyond what a group signal reaches — except
in the sandbox, where bwrap leads the group and everything inside dies with it (pid namespace).

The command is a `ChildProcess` (platform/subprocess_pipes.py) the running loop spawned: its exit is
observed through the pipes' protocol rather than `Process.wait()`, which (on the Python versions
we support) may not return while a grandchild still holds the output pipe.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable, Mapping
from pathlib import Path

from levelcode.core.errors import ToolError
from levelcode.platform.process_groups import describe_exit as exit_description
from levelcode.platform.process_groups import group_alive, terminate_group
from levelcode.platform.subprocess_pipes import AsyncioChild, ChildProcess, PipesProtocol
from levelcode.sandbox.confinement import Wrap

STOP_GRACE_SECONDS = 1.5
__all__ = ["ShellProcess", "exit_description", "group_alive"]
DRAIN_SECONDS = 2.0  # how long to wait for the last output once the group is gone


# LevelCode's own credentials: a command the model runs has no business reading them, and a
# prompt-injected `curl … -d "$ANTHROPIC_API_KEY"` must find nothing there.
HIDDEN_VARIABLES = frozenset(
    {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "LEVELCODE_API_KEY"}
)


def command_environment(parent: Mapping[str, str]) -> dict[str, str]:
    return {key: value for key, value in parent.items() if key not in HIDDEN_VARIABLES}


async def _bounded(event: asyncio.Event, seconds: float | None) -> bool:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), seconds)
    return event.is_set()


class ShellProcess:
    """One running `bash -c` command, its merged stdout and stderr streamed to a callback."""

    def __init__(self, child: ChildProcess, output_closed: asyncio.Event) -> None:
        self._child = child
        self._output_closed = output_closed
        self.pid = child.pid  # a new session's leader: its pid is also the group id

    @property
    def returncode(self) -> int | None:
        return self._child.returncode

    @classmethod
    async def start(
        cls,
        command: str,
        cwd: Path,
        on_output: Callable[[bytes], None],
        on_exit: Callable[[], None] = lambda: None,
        *,
        wrap: Wrap | None = None,
    ) -> ShellProcess:
        """Start `bash -c command` in `cwd` with stdin closed, in a new session; `wrap` (the
        sandbox) turns the argv and environment into those that run it confined.

        The command already runs while asyncio connects its pipes; a cancellation arriving then
        must still stop its group, so the spawn is shielded and cleaned up here.
        """
        argv, env = ["bash", "-c", command], command_environment(os.environ)
        if wrap is not None:
            argv, env = wrap(argv, env)
        spawning = asyncio.ensure_future(cls._spawn(argv, env, cwd, on_output, on_exit))
        try:
            return await asyncio.shield(spawning)
        except asyncio.CancelledError:
            try:
                await (await spawning).stop()
            except asyncio.CancelledError:
                spawning.add_done_callback(_kill_spawned_group)  # cancelled again: no grace left
                raise
            except ToolError:
                pass
            raise

    @classmethod
    async def _spawn(
        cls,
        argv: list[str],
        env: dict[str, str],
        cwd: Path,
        on_output: Callable[[bytes], None],
        on_exit: Callable[[], None],
    ) -> ShellProcess:
        output_closed = asyncio.Event()
        pipes = PipesProtocol(
            lambda _fd, data: on_output(data),  # stdout and stderr are one pipe
            lambda _fd: output_closed.set(),
            lambda _code: on_exit(),
        )
        try:
            child = await AsyncioChild.spawn(
                argv,
                pipes,
                cwd=cwd,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.STDOUT,
            )
        except OSError as exc:
            raise ToolError(f"could not start the command: {exc.strerror or exc}") from exc
        return cls(child, output_closed)

    async def wait(self, seconds: float | None = None) -> bool:
        """Whether the shell exited within `seconds` (its children may live on)."""
        return await self._child.wait(seconds)

    async def stop(self, *, grace: float = STOP_GRACE_SECONDS) -> None:
        """SIGTERM the whole group, SIGKILL whatever is left after `grace` seconds, then collect the
        last output and release the pipes. Safe to call when everything has already ended.

        The SIGKILL runs in a `finally`, so a second cancellation during the grace period still
        leaves nothing running.
        """
        try:
            await terminate_group(self.pid, grace, leader_exited=self._child.exited)
            await self._child.wait(grace)
            await _bounded(self._output_closed, DRAIN_SECONDS)
        finally:
            self._child.close()

    def abandon(self) -> None:
        """Stop at once, without grace or waiting: for when there is no time left to await."""
        self._child.signal_group(signal.SIGKILL)
        self._child.close()


def _kill_spawned_group(spawning: asyncio.Future[ShellProcess]) -> None:
    if not spawning.cancelled() and spawning.exception() is None:
        spawning.result().abandon()
