"""Running an async command to completion with its cleanup guaranteed, whatever ends it.

SIGINT, SIGTERM and SIGHUP cancel the command; the cleanup (reaping MCP servers) then runs once,
shielded from further signals. SIGKILL cannot be caught: the watchdog (mcp/stdio/reaper.py) covers it.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

HANDLED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def event_loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop where it exists: it roughly halves the event loop's share of every MCP call."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


Interrupt = Callable[[], bool]  # SIGINT hook: True when it handled the signal (e.g. aborted a turn)


def run_command(
    main: Callable[[], Coroutine[Any, Any, int]],
    cleanup: Callable[[], Awaitable[None]] | None = None,
    *,
    interrupt: Interrupt | None = None,
) -> int:
    with asyncio.Runner(loop_factory=event_loop_factory()) as runner:
        return runner.run(_guarded(main, cleanup, interrupt))


async def _guarded(
    main: Callable[[], Coroutine[Any, Any, int]],
    cleanup: Callable[[], Awaitable[None]] | None,
    interrupt: Interrupt | None,
) -> int:
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(main())
    received: list[int] = []

    def on_signal(signum: int) -> None:
        if signum == signal.SIGINT and interrupt is not None and interrupt():
            return
        if not received:
            received.append(signum)
            task.cancel()

    for signum in HANDLED_SIGNALS:
        loop.add_signal_handler(signum, on_signal, signum)
    try:
        return await task
    except asyncio.CancelledError:
        if not received:
            raise
        return 128 + received[0]
    finally:
        if cleanup is not None:
            await asyncio.shield(cleanup())
        for signum in HANDLED_SIGNALS:
            loop.remove_signal_handler(signum)
