"""`levelcode run "PROMPT"`: one task, nobody to ask. The prompt is the argument, or stdin: with
`-`, or with no argument when stdin is not a terminal (`echo "fix it" | levelcode run`).

Anything that needs approval is denied (HeadlessApprover) unless `--autopilot` lets it run
without asking; flagged commands and MCP calls not allow-listed never run here. The answer goes
to stdout, tool activity to stderr (with the live activity line when stderr is a terminal, and
nothing of it otherwise); `--json` writes one JSON event per line to stdout instead.
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
from typing import IO, TYPE_CHECKING

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
    from levelcode.ui.activity_line import ActivityLine


FROM_STDIN = "-"
MAX_STDIN_PROMPT_CHARS = 1_000_000  # a prompt this long is a mistake (a binary, a log), not a task
NO_PROMPT = 'no prompt: levelcode -p "PROMPT" (or levelcode run "PROMPT"), or pipe it in (- reads stdin)'


def task_prompt(argument: str | None, stdin: IO[str]) -> str:
    """The task: `argument`, or stdin when it is `-` or missing and stdin is not a terminal.
    Raises ConfigError for no prompt, an empty one, or one over `MAX_STDIN_PROMPT_CHARS`."""
    if argument is not None and argument != FROM_STDIN:
        return argument
    if argument is None and stdin.isatty():
        raise ConfigError(NO_PROMPT)
    text = stdin.read(MAX_STDIN_PROMPT_CHARS + 1)
    if len(text) > MAX_STDIN_PROMPT_CHARS:
        raise ConfigError(f"the prompt on stdin is over {MAX_STDIN_PROMPT_CHARS:,} characters; not run")
    if not text.strip():
        raise ConfigError(
            'the prompt read from stdin is empty; give it as an argument: levelcode run "PROMPT"'
        )
    return text.strip("\n")


def run_headless(args: argparse.Namespace) -> int:
    try:
        prompt = task_prompt(args.prompt, sys.stdin)
        start = prepare_session(args)
    except (ConfigError, ProviderAuthError, SessionUnreadable) as exc:
        return refuse(exc)
    from levelcode.cli.aio import run_command

    opened: list[ChatSession] = []

    async def main() -> int:
        await start.mcp.begin_trusted()  # the user's own servers boot while the rest is imported
        from levelcode.cli.session import open_session
        from levelcode.core.approvals import HeadlessApprover
        from levelcode.ui.activity_line import naming

        sink, line = make_sink(args.json)
        session = open_session(start, approver=HeadlessApprover(), sink=sink)
        opened.append(session)
        if start.resumed is not None:
            from levelcode.agent.events import Notice
            from levelcode.ui.session_view import resumed_line

            sink.emit(Notice(resumed_line(start.resumed.summary, session.provider.settings.model)))
        session.warm()
        if line is not None:
            starting = naming("starting MCP servers", session.mcp.hub.still_starting)
            session.mcp.starting = lambda _names: line.showing(starting)
        try:
            try:
                await session.start()
                text = await session.agent.run_turn(prompt)
            finally:
                if line is not None:
                    line.clear()
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


def make_sink(as_json: bool) -> tuple[EventSink, ActivityLine | None]:
    """Where events go, and the activity line on stderr (drawn only when stderr is a terminal)."""
    from levelcode.ui.render import ConsoleSink, JsonLinesSink

    if as_json:
        return JsonLinesSink(sys.stdout), None
    from levelcode.ui.output_console import OutputConsole

    sink = ConsoleSink(OutputConsole(soft_wrap=True), OutputConsole(stderr=True, soft_wrap=True))
    return sink, sink.line


async def close_start(start: SessionStart) -> None:
    """Cleanup before the session opened: the servers begun are ended."""
    await start.mcp.close()


def report(sink: EventSink, as_json: bool, message: str) -> None:
    from levelcode.agent.events import Notice
    from levelcode.ui.visible import visible_block

    if as_json:
        sink.emit(Notice(message))
    print(f"levelcode: {visible_block(message)}", file=sys.stderr)
