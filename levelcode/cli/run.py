"""`levelcode run "PROMPT"` and `levelcode -p "PROMPT"` (the same run): one task, nobody to ask.
The prompt is the argument, or stdin: with `-`, or with no argument when stdin is not a terminal
(`echo "fix it" | levelcode -p`). Text piped in beside a prompt goes before it, as the material the
prompt is about (`cat build.log | levelcode -p "why did it fail?"`); a pipe that has sent nothing
within `PIPE_WAIT_SECONDS` (a harness that leaves stdin open) is not waited for.

Anything that needs approval is denied (HeadlessApprover) unless `--autopilot` lets it run
without asking; flagged commands and MCP calls not allow-listed never run here. What goes to
stdout is `--output-format`'s: `text` (the default) the model's text as it comes, ending with its
answer, with tool activity on stderr (the live activity line only when stderr is a terminal);
`stream-json` (also `run --json`) one JSON event per line, then the result object
(ui/run_result.py); `json` that object alone, at the end, with the activity on stderr.
With `--continue` or `--resume ID` the prompt goes on in a saved session (cli/start/resumed_session.py);
every run is saved as a session of its own otherwise (agent/session_store.py).
Exit codes: 0 done, 1 the task failed (provider error, no final answer), 2 bad usage or
configuration (your settings.json cannot be used, no API key; nothing is written to stdout),
141 the reader of its output left (`| head`), 128+N ended by signal N. A repository's config
file that cannot be used is reported first and its servers are not started; the task goes on.
"""

from __future__ import annotations

import argparse
import io
import os
import select
import stat
import sys
import time
from typing import IO, TYPE_CHECKING

from levelcode.cli.start.light_start import SessionStart, prepare_session, refuse
from levelcode.core.errors import (
    ConfigError,
    ProviderAuthError,
    ProviderError,
    SessionUnreadable,
    TurnAborted,
)

if TYPE_CHECKING:
    from levelcode.agent.events import EventSink, TurnFinished
    from levelcode.cli.start.chat_parts import ChatSession
    from levelcode.ui.activity_line import ActivityLine


FROM_STDIN = "-"
MAX_STDIN_PROMPT_CHARS = 1_000_000  # a prompt this long is a mistake (a binary, a log), not a task
PIPE_WAIT_SECONDS = 1.0  # how long a pipe beside a prompt may stay silent before it is left unread
NO_PROMPT = 'no prompt: levelcode -p "PROMPT" (or levelcode run "PROMPT"), or pipe it in (- reads stdin)'


def task_prompt(argument: str | None, stdin: IO[str]) -> str:
    """The task: `argument`, or stdin when it is `-` or missing and stdin is not a terminal; an
    argument with text piped in beside it (`piped_beside`) comes after that text.
    Raises ConfigError for no prompt, an empty one, or one over `MAX_STDIN_PROMPT_CHARS`."""
    if argument is not None and argument != FROM_STDIN:
        material = _read_capped(stdin).strip("\n") if piped_beside(stdin) else ""
        return f"{material}\n\n{argument}" if material.strip() else argument
    if argument is None and stdin.isatty():
        raise ConfigError(NO_PROMPT)
    text = _read_capped(stdin)
    if not text.strip():
        raise ConfigError(
            'the prompt read from stdin is empty; give it as an argument: levelcode run "PROMPT"'
        )
    return text.strip("\n")


def _read_capped(stdin: IO[str]) -> str:
    text = stdin.read(MAX_STDIN_PROMPT_CHARS + 1)
    if len(text) > MAX_STDIN_PROMPT_CHARS:
        raise ConfigError(f"the text on stdin is over {MAX_STDIN_PROMPT_CHARS:,} characters; not run")
    return text


def piped_beside(stdin: IO[str], wait: float = PIPE_WAIT_SECONDS) -> bool:
    """Whether stdin holds text to read beside a prompt: a file redirected in, or a pipe that has
    something to say (text, or its end) within `wait` seconds — not a terminal, not /dev/null,
    and not a pipe a harness opened and never writes to, which would hang the run."""
    try:
        mode = os.fstat(stdin.fileno()).st_mode
    except (OSError, ValueError, io.UnsupportedOperation):
        return False
    if stat.S_ISREG(mode):
        return True
    if not stat.S_ISFIFO(mode):
        return False
    ready, _, _ = select.select([stdin], [], [], wait)
    return bool(ready)


def output_format(args: argparse.Namespace) -> str:
    """`--output-format`'s value; `run --json` is `stream-json`; `text` by default."""
    chosen: str | None = getattr(args, "output_format", None)
    return chosen or ("stream-json" if getattr(args, "json", False) else "text")


def run_headless(args: argparse.Namespace) -> int:
    began = time.monotonic()
    form = output_format(args)
    try:
        prompt = task_prompt(args.prompt, sys.stdin)
        start = prepare_session(args)
    except (ConfigError, ProviderAuthError, SessionUnreadable) as exc:
        return refuse(exc)
    from levelcode.cli.aio import run_command

    opened: list[ChatSession] = []

    async def main() -> int:
        await start.mcp.begin_trusted()  # the user's own servers boot while the rest is imported
        from levelcode.cli.start.chat_parts import open_session
        from levelcode.core.approvals import HeadlessApprover
        from levelcode.ui.run_result import TurnEndSeen

        sink, line = make_sink(form)
        watched = TurnEndSeen(sink)
        session = open_session(start, approver=HeadlessApprover(), sink=watched)
        opened.append(session)
        if start.resumed is not None:
            from levelcode.agent.events import Notice
            from levelcode.ui.session_view import resumed_line

            sink.emit(Notice(resumed_line(start.resumed.summary, session.provider.settings.model)))
        code, failure = await run_task(session, prompt, line, form)
        if form != "text":
            took = int((time.monotonic() - began) * 1000)
            write_result(session, watched.finished, code, failure, took)
        return code

    async def cleanup() -> None:
        await (opened[0].close() if opened else close_start(start))

    return run_command(main, cleanup)


async def run_task(
    session: ChatSession, prompt: str, line: ActivityLine | None, form: str
) -> tuple[int, str | None]:
    """Start the servers and run the turn: the exit status, and what went wrong (None: nothing)."""
    sink = session.agent.sink
    session.warm()
    if line is not None:
        from levelcode.ui.activity_line import naming

        starting = naming("starting MCP servers", session.mcp.still_starting)
        session.mcp.starting = lambda _names: line.showing(starting)
    try:
        try:
            await session.start()
            text = await session.agent.run_turn(prompt)
        finally:
            if line is not None:
                line.clear()
    except ProviderError as exc:
        return 1, report(sink, form, f"error: {exc}")
    except TurnAborted as exc:
        return 130, report(sink, form, f"aborted: {exc}")
    if text or session.agent.transcript.messages[-1].role == "assistant":
        return 0, None
    return 1, "the run gave no final answer"


def write_result(
    session: ChatSession, finished: TurnFinished | None, code: int, failure: str | None, took_ms: int
) -> None:
    """The result object (ui/run_result.py) on its own line of stdout."""
    from levelcode.ui.render import JsonLinesSink
    from levelcode.ui.run_result import RunOutcome, result_object

    agent = session.agent
    outcome = RunOutcome(
        code,
        finished.text if finished is not None else "",
        finished.stop_reason if finished is not None else None,
        failure,
        session.recorder.id,
        agent.provider.settings.model,
        agent.spend.turn,
        took_ms,
    )
    JsonLinesSink(sys.stdout).write(result_object(outcome))


def make_sink(form: str) -> tuple[EventSink, ActivityLine | None]:
    """Where events go, and the activity line on stderr (drawn only when stderr is a terminal)."""
    from levelcode.ui.render import ConsoleSink, JsonLinesSink

    if form == "stream-json":
        return JsonLinesSink(sys.stdout), None
    from levelcode.ui.output_console import OutputConsole

    activity = OutputConsole(stderr=True, soft_wrap=True)
    if form == "json":
        from levelcode.ui.run_result import AnswerHeld

        shown = ConsoleSink(activity)
        return AnswerHeld(shown), shown.line
    sink = ConsoleSink(OutputConsole(soft_wrap=True), activity)
    return sink, sink.line


async def close_start(start: SessionStart) -> None:
    """Cleanup before the session opened: the servers begun are ended."""
    await start.mcp.close()


def report(sink: EventSink, form: str, message: str) -> str:
    """Say what went wrong on stderr (and as a notice among stream-json's events); returns it."""
    from levelcode.agent.events import Notice
    from levelcode.ui.visible import visible_block

    if form == "stream-json":
        sink.emit(Notice(message))
    print(f"levelcode: {visible_block(message)}", file=sys.stderr)
    return message
