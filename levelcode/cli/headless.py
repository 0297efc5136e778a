"""`levelcode run "PROMPT"`: one task, nobody to ask.

Anything that needs approval is denied (HeadlessApprover) unless `--autopilot` lets it run
without asking; flagged commands and MCP calls not allow-listed never run here. The answer goes
to stdout, tool activity to stderr; `--json` writes one JSON event per line to stdout instead.
With `--continue` or `--resume ID` the prompt goes on in a saved session (cli/sessions_resume.py);
every run is saved as a session of its own otherwise (agent/session_store.py).
Exit codes: 0 done, 1 the task failed (provider error, no final answer), 2 bad usage or
configuration (your settings.json cannot be used, no API key), 141 the reader of its output left
(`| head`), 128+N ended by signal N. A repository's config file that cannot be used is reported
first and its servers are not started; the task goes on.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from levelcode.cli.session_start import SessionStart, prepare_session, refuse
from levelcode.core.errors import (
    ConfigError,
    ProviderAuthError,
    ProviderError,
    SessionUnreadable,
    TurnAborted,
)

if TYPE_CHECKING:
    from levelcode.agent.events import EventSink
    from levelcode.cli.session import ChatSession


def run_headless(args: argparse.Namespace) -> int:
    try:
        start = prepare_session(args)
    except (ConfigError, ProviderAuthError, SessionUnreadable) as exc:
        return refuse(exc)
    from levelcode.cli.aio import run_command

    opened: list[ChatSession] = []

    async def main() -> int:
        await start.mcp.begin_trusted()  # the user's own servers boot while the rest is imported
        from levelcode.cli.session import open_session
        from levelcode.core.approvals import HeadlessApprover

        sink = make_sink(args.json)
        session = open_session(start, approver=HeadlessApprover(), sink=sink)
        opened.append(session)
        if start.resumed is not None:
            from levelcode.agent.events import Notice
            from levelcode.ui.session_view import resumed_line

            sink.emit(Notice(resumed_line(start.resumed.summary, session.provider.settings.model)))
        session.warm()
        await session.start()
        try:
            text = await session.agent.run_turn(args.prompt)
        except ProviderError as exc:
            report(sink, args.json, f"error: {exc}")
            return 1
        except TurnAborted as exc:
            report(sink, args.json, f"aborted: {exc}")
            return 130
        return 0 if text or session.agent.transcript.messages[-1].role == "assistant" else 1

    async def cleanup() -> None:
        await (opened[0].close() if opened else close_start(start))

    return run_command(main, cleanup)


def make_sink(as_json: bool) -> EventSink:
    from levelcode.ui.render import ConsoleSink, JsonLinesSink

    if as_json:
        return JsonLinesSink(sys.stdout)
    from levelcode.ui.output_console import OutputConsole

    return ConsoleSink(OutputConsole(soft_wrap=True), OutputConsole(stderr=True, soft_wrap=True))


async def close_start(start: SessionStart) -> None:
    """Cleanup before the session opened: the servers begun are ended."""
    await start.mcp.close()


def report(sink: EventSink, as_json: bool, message: str) -> None:
    from levelcode.agent.events import Notice
    from levelcode.ui.visible import visible_block

    if as_json:
        sink.emit(Notice(message))
    print(f"levelcode: {visible_block(message)}", file=sys.stderr)
