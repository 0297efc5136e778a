"""`levelcode run "PROMPT"`: one task, nobody to ask.

Anything that needs approval is denied (HeadlessApprover) unless `--autopilot` lets it run
without asking; flagged commands and MCP calls not allow-listed never run here. The answer goes
to stdout, tool activity to stderr; `--json` writes one JSON event per line to stdout instead.
Exit codes: 0 done, 1 the task failed (provider error, no final answer), 2 bad usage or
configuration, 128+N ended by signal N.
"""

from __future__ import annotations

import argparse
import sys

from rich.console import Console

from levelcode.agent.events import EventSink, Notice
from levelcode.cli.aio import run_command
from levelcode.core.approvals import HeadlessApprover
from levelcode.core.errors import ConfigError, ProviderAuthError, ProviderError, TurnAborted
from levelcode.ui.render import ConsoleSink, JsonLinesSink
from levelcode.ui.visible import visible_block


def run_headless(args: argparse.Namespace) -> int:
    from levelcode.cli.session import open_session

    sink: EventSink
    if args.json:
        sink = JsonLinesSink(sys.stdout)
    else:
        sink = ConsoleSink(Console(soft_wrap=True), Console(stderr=True, soft_wrap=True))
    try:
        session = open_session(args, approver=HeadlessApprover(), sink=sink)
    except (ConfigError, ProviderAuthError) as exc:
        print(f"levelcode: {visible_block(str(exc))}", file=sys.stderr)
        return 2

    async def main() -> int:
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

    return run_command(main, session.close)


def report(sink: EventSink, as_json: bool, message: str) -> None:
    if as_json:
        sink.emit(Notice(message))
    print(f"levelcode: {visible_block(message)}", file=sys.stderr)
