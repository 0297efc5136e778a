"""The interactive session: a prompt with history, streamed answers, approval cards, slash commands.

The prompt appears before the MCP servers have finished starting (cli/interactive.py began the
user's own ones before this module was even imported): a repository's servers are put to the
launch gate first (its cards need the terminal), then every permitted server goes on starting in
the background; what that start has to say is held while the prompt is up and shown above it when
it ends, and the first turn waits for it, with progress, bounded by the servers' own start-up
timeouts (Ctrl-C skips the slow ones).

Ctrl-C while the agent works aborts that turn (the transcript stays paired) and returns to the
prompt; Ctrl-C at the prompt clears the line; Ctrl-D or /exit leaves. SIGTERM and SIGHUP end the
session, with the same cleanup as /exit.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from levelcode import __version__
from levelcode.agent.events import AgentEvent, EventSink, Notice
from levelcode.cli.repl_mcp import McpCompleter, McpPromptParts, PromptError, split_words
from levelcode.cli.session_start import SessionStart
from levelcode.core import paths
from levelcode.core.errors import ProviderError, TurnAborted
from levelcode.core.private_files import touch_private
from levelcode.mcp.client_features import UserAnswers
from levelcode.mcp.config.specs import ServerSpec
from levelcode.providers.base import Provider
from levelcode.ui.approval_card import TerminalApprover
from levelcode.ui.context_view import render_context
from levelcode.ui.mcp_views import print_list
from levelcode.ui.render import ConsoleSink
from levelcode.ui.visible import visible, visible_block

HELP = """\
Commands:
  /help      this help
  /mcp       MCP servers: state, origin, command, tools (allow/ask)
  /mcp stop NAME     end one server now (whole process group); /new starts it again
  /mcp revoke NAME   forget a repository server's approval here (it keeps running unless stopped)
  /context   where the context goes: system prompt, tools (built-in, MCP per server), messages
  /add-dir DIR       let the tools use DIR too, and tell the MCP servers that asked for roots
  /SERVER:PROMPT ARG…   run an MCP server's prompt (Tab completes names and arguments)
  @SERVER:URI        in a message: attach that MCP resource (Tab completes servers and URIs)
  /compact   summarize the older turns now (it also happens by itself before the context is full)
  /new       start a new chat (forgets the conversation, ends background commands, restarts MCP)
  /exit      leave (also Ctrl-D)
Keys: Enter sends · Ctrl-C aborts the running turn, or clears the line · ↑/↓ history"""

Command = Callable[[list[str]], Awaitable[bool]]  # given the words after the command; False to leave
INTERRUPTED_START = (
    "⏹ MCP start-up interrupted: servers that had not started are not running "
    "(/mcp shows which; /new tries again)"
)


def _no_status(_names: Sequence[str]) -> AbstractContextManager[object]:
    return contextlib.nullcontext()


def open_repl(start: SessionStart) -> Repl:
    """The REPL over a prepared start; raises ProviderAuthError when the key is refused."""
    from levelcode.cli.server_requests import TerminalAnswers
    from levelcode.cli.session import open_session

    console = Console()
    approver, shown = TerminalApprover(console), ConsoleSink(console)
    sink = HeldNotices(shown)

    def answers(provider: Provider) -> UserAnswers:
        return TerminalAnswers(console, approver, lambda: provider, shown.stop_progress).answers()

    session = open_session(start, approver=approver, sink=sink, answers=answers)
    return Repl(console, session, sink)


class HeldNotices:
    """A sink that can hold notices back (while the prompt is up) and show them later, in order."""

    def __init__(self, sink: EventSink) -> None:
        self.sink = sink
        self.held: list[AgentEvent] | None = None

    def emit(self, event: AgentEvent) -> None:
        if self.held is not None and isinstance(event, Notice):
            self.held.append(event)
        else:
            self.sink.emit(event)

    def hold(self) -> None:
        self.held = [] if self.held is None else self.held

    def release(self) -> None:
        held, self.held = self.held or [], None
        for event in held:
            self.sink.emit(event)


class Repl:
    def __init__(self, console: Console, session: object, notices: HeldNotices) -> None:
        from levelcode.cli.session import ChatSession

        assert isinstance(session, ChatSession)
        self.console = console
        self.session = session
        self.mcp_parts = McpPromptParts(session.mcp.hub)
        self.notices = notices
        self.turn: asyncio.Future[Any] | None = None  # what Ctrl-C aborts: a turn, or MCP start-up
        self.startup: asyncio.Future[None] | None = None  # the servers starting behind the prompt
        self.commands: dict[str, Command] = {
            "/mcp": self.mcp,
            "/context": self.context,
            "/add-dir": self.add_dir,
            "/compact": self.compact,
            "/help": self.help,
            "/new": self.new,
            "/exit": self.leave,
            "/quit": self.leave,
        }

    def banner(self) -> None:
        settings = self.session.provider.settings
        self.console.print(
            Text.assemble(
                ("LevelCode ", "bold"),
                (__version__, "dim"),
                (f" · {settings.provider}/{settings.model}", "cyan"),
                (f" · {self.session.workspace}", "dim"),
                self.sandbox_chip(),
            )
        )

    def sandbox_chip(self) -> tuple[str, str]:
        sandbox = self.session.ctx.sandbox
        if sandbox is None or not sandbox.available:
            return (" · no sandbox", "yellow")
        return (f" · sandbox, network {'on' if sandbox.network else 'off'}", "dim")

    async def main(self) -> int:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory

        history = touch_private(paths.history_path())  # FileHistory appends; it never creates it 0600
        completer = McpCompleter(self.mcp_parts, self.commands)
        prompt: PromptSession[str] = PromptSession(
            history=FileHistory(str(history)), completer=completer, complete_while_typing=False
        )
        self.banner()
        permitted: list[ServerSpec] = []
        await self.start_servers(self.admit(permitted))
        self.begin_startup(permitted)
        self.session.warm()
        self.console.print(Text("/help for commands · Ctrl-C aborts a turn · Ctrl-D leaves", style="dim"))
        while True:
            try:
                text = await prompt.prompt_async("> ", handle_sigint=False)
            except KeyboardInterrupt:
                continue
            except EOFError:
                return 0
            text = text.strip()
            if not text:
                continue
            if text.startswith("/"):
                if not await self.command(text):
                    return 0
                continue
            await self.servers_ready()
            await self.run_turn(text)

    async def admit(self, permitted: list[ServerSpec]) -> None:
        permitted.extend(await self.session.admit())

    def begin_startup(self, permitted: Sequence[ServerSpec]) -> None:
        """The permitted servers go on starting behind the prompt; their notices wait for it."""
        self.session.mcp.starting = _no_status
        self.notices.hold()
        self.startup = asyncio.ensure_future(self.session.launch(permitted))
        self.startup.add_done_callback(lambda _task: asyncio.ensure_future(self._show_startup()))

    async def _show_startup(self) -> None:
        """Print what the start had to say above the prompt (or now, when no prompt is up)."""
        from prompt_toolkit.application import run_in_terminal

        if self.notices.held is not None:
            await run_in_terminal(self.notices.release)

    async def servers_ready(self) -> None:
        """The first turn waits for the servers still starting: with progress, Ctrl-C skips them."""
        startup = self.startup
        if startup is not None and not startup.done():
            names = self.session.mcp.hub.still_starting()
            status = f"waiting for MCP servers: {', '.join(names) or '…'}… (Ctrl-C to skip)"
            self.turn = startup
            try:
                with self.console.status(status):
                    await asyncio.wait({startup})
            finally:
                self.turn = None
            if startup.cancelled():
                self.console.print(Text(INTERRUPTED_START, style="yellow"))
        self.notices.release()

    async def command(self, text: str) -> bool:
        name, *words = text.split()
        handler = self.commands.get(name.lower())
        if handler is None and ":" in name:
            await self.run_prompt(name, text[len(name) :])
            return True
        if handler is None:
            self.console.print(Text(visible(f"unknown command {name}; /help lists them"), style="yellow"))
            return True
        return await handler(words)

    async def help(self, _words: list[str]) -> bool:
        self.console.print(HELP)
        return True

    async def mcp(self, words: list[str]) -> bool:
        """`/mcp` lists; `/mcp stop NAME` ends a server now; `/mcp revoke NAME` forgets its approval."""
        if not words:
            print_list(self.console, self.session.mcp.list_view(take_errors=True))
            return True
        action, names = words[0], words[1:]
        if action not in ("stop", "revoke") or len(names) != 1:
            self.console.print(Text("usage: /mcp · /mcp stop NAME · /mcp revoke NAME", style="yellow"))
            return True
        lines = await (
            self.session.mcp.stop(names[0]) if action == "stop" else self.session.mcp.revoke(names[0])
        )
        for line in lines:
            self.console.print(Text(visible(line)))
        return True

    async def context(self, _words: list[str]) -> bool:
        self.console.out(
            render_context(self.session.context_usage(), last=self.session.agent.last_usage), highlight=False
        )
        return True

    async def add_dir(self, words: list[str]) -> bool:
        folder = Path(" ".join(words)).expanduser() if words else None
        if folder is None or not folder.is_dir():
            self.console.print(Text("usage: /add-dir DIR (an existing directory)", style="yellow"))
            return True
        self.session.add_folder(folder.resolve())
        self.console.print(
            Text(
                visible(f"Added {folder.resolve()}: the tools may use it, and servers are told."),
                style="green",
            )
        )
        return True

    async def run_prompt(self, command: str, rest: str) -> None:
        """`/server:prompt ARG…`: the server's prompt, sent as the next message."""
        await self.servers_ready()
        try:
            text = await self.mcp_parts.prompt_text(command, split_words(rest))
        except PromptError as exc:
            self.console.print(Text(visible(str(exc)), style="yellow"))
            return
        self.console.print(Text(visible(f"running {command}…"), style="dim"))
        await self.run_turn(text, attach=False)

    async def compact(self, _words: list[str]) -> bool:
        work = asyncio.ensure_future(self.session.agent.compact("/compact", keep="turn"))
        self.turn = work
        try:
            with self.console.status("compacting the conversation… (Ctrl-C to stop)"):
                compacted = await work
        except asyncio.CancelledError:
            if not work.cancelled():
                raise
            self.console.print(Text("⏹ compaction stopped; the conversation is as it was", style="yellow"))
            return True
        finally:
            self.turn = None
        if not compacted:
            self.console.print(Text("Nothing to compact yet: the conversation is one turn long.", "dim"))
        return True

    async def new(self, _words: list[str]) -> bool:
        await self.servers_ready()
        await self.start_servers(self.session.reset())
        self.console.print(Text("New chat.", style="green"))
        return True

    async def start_servers(self, work: Coroutine[object, object, None]) -> None:
        """MCP start-up can take seconds: show progress, and let Ctrl-C give up on the slow ones."""
        self.session.mcp.starting = self.starting_status
        starting = asyncio.ensure_future(work)
        self.turn = starting
        try:
            await starting
        except asyncio.CancelledError:
            if not starting.cancelled():
                raise
            self.console.print(Text(INTERRUPTED_START, style="yellow"))
        finally:
            self.turn = None

    def starting_status(self, names: Sequence[str]) -> AbstractContextManager[object]:
        if not names:
            return contextlib.nullcontext()
        return self.console.status(f"starting MCP servers: {', '.join(names)}… (Ctrl-C to skip)")

    async def leave(self, _words: list[str]) -> bool:
        return False

    def interrupt(self) -> bool:
        """Ctrl-C: abort the running turn; at the prompt it is a key, handled there."""
        if self.turn is not None and not self.turn.done():
            self.turn.cancel()
        return True

    async def run_turn(self, text: str, *, attach: bool = True) -> None:
        if attach and "@" in text:
            attached = await self.mcp_parts.attach(text)
            for note in attached.notes:
                self.console.print(Text(visible(note), style="dim"))
            text = attached.text
        turn = asyncio.ensure_future(self.session.agent.run_turn(text))
        self.turn = turn
        try:
            await turn
        except (TurnAborted, asyncio.CancelledError) as exc:
            if isinstance(exc, asyncio.CancelledError) and not turn.cancelled():
                raise
            self.session.agent.sink.emit(Notice("⏹ aborted"))
        except ProviderError as exc:
            self.console.print(Text(f"error: {visible_block(str(exc))}", style="red"))
        finally:
            self.turn = None
