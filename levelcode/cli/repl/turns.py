"""One message in the REPL, from the line entered to the model's answer: what it mentions and
the output of the `!cmd` lines before it are attached (one dim line says what), the turn runs
(Ctrl-C aborts it), and after it a dim line of its tokens and cost. A failed request is one red
line; the session goes on.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.text import Text

from levelcode.core.errors import ProviderError, TurnAborted
from levelcode.ui.visible import visible, visible_block

if TYPE_CHECKING:
    from levelcode.cli.repl.face import ReplFace
    from levelcode.core.attachments import Attachment


async def send_message(repl: ReplFace, text: str, *, attach: bool = True, typed: str | None = None) -> None:
    """Run one turn for `text`, with the output of the `!cmd` lines run since the last one;
    `attach`: what it mentions (`@path`, `@server:uri`) goes with it too — what `typed` mentions,
    when `text` is more than the user typed (a command's text around their arguments)."""
    from levelcode.cli.repl.mentions import attached_line

    session = repl.session
    mentioned = await mentioned_in(repl, text if typed is None else typed) if attach else ()
    attachments, repl.pending = (*repl.pending, *mentioned), []  # `!cmd` outputs come first
    if attachments:
        repl.console.print(Text(visible(attached_line(attachments)), style="dim"), soft_wrap=True)
    turn = asyncio.ensure_future(session.agent.run_turn(text, attachments))
    repl.turn = turn
    try:
        try:
            await turn
        finally:
            repl.line.clear()  # waiting for the model or a tool: over, whatever ended it
    except (TurnAborted, asyncio.CancelledError) as exc:
        if isinstance(exc, asyncio.CancelledError) and not turn.cancelled():
            raise
        from levelcode.agent.events import Notice

        session.agent.sink.emit(Notice("⏹ aborted"))
    except ProviderError as exc:
        repl.console.print(Text(f"error: {visible_block(str(exc))}", style="red"))
    finally:
        repl.turn = None
        spend_line(repl)


async def mentioned_in(repl: ReplFace, text: str) -> tuple[Attachment, ...]:
    """What `text` mentions, attached; a line for each mention that could not be."""
    from levelcode.cli.repl.mentions import gather

    if "@" not in text:
        return ()
    gathered = await gather(text, repl.session.ctx, repl.mcp_parts)
    for reason in gathered.refused:  # one line each, however long: the terminal wraps it
        repl.console.print(Text(visible(reason), style="yellow"), soft_wrap=True)
    return gathered.attachments


def spend_line(repl: ReplFace) -> None:
    """The turn's tokens and cost, one dim line (nothing when no request finished)."""
    from levelcode.ui.spend_view import turn_line

    spend, model = repl.session.agent.spend, repl.session.provider.settings.model
    if spend.turn.requests:
        repl.console.print(Text(turn_line(spend.turn, spend.session, model), style="dim"))


async def run_server_prompt(repl: ReplFace, command: str, rest: str) -> None:
    """`/server:prompt ARG…`: the server's prompt, sent as the next message."""
    from levelcode.cli.repl.mcp_prompt_parts import PromptError, split_words

    await repl.servers_ready()
    try:
        text = await repl.mcp_parts.prompt_text(command, split_words(rest))
    except PromptError as exc:
        repl.console.print(Text(visible(str(exc)), style="yellow"))
        return
    repl.console.print(Text(visible(f"running {command}…"), style="dim"))
    await send_message(repl, text, attach=False)
