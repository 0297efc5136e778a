"""The interactive session: a prompt with history, streamed answers, approval cards, slash commands.

The prompt comes first. Before it: the settings, the provider's key, the user's own servers spawned
(as many as leave a core free; cli/repl/interactive.py), prompt_toolkit and the banner — nothing else.
The rest of LevelCode (the MCP runtime, the agent, its tools and terminal views) is loaded behind
the prompt, off the event loop's thread so typing stays live, and the first line entered waits for
it. Then every permitted server goes on starting in the background; what that start has to say is
held while the prompt is up and shown above it when it ends, and the first turn waits for it, with
progress, bounded by the servers' own start-up timeouts (Ctrl-C skips the slow ones).

A repository that asks for servers (.levelcode/mcp.json, .mcp.json) is the exception: its servers
pass the launch gate first, and its approval cards need the terminal, so the session opens, and
asks, before the prompt.

`levelcode "PROMPT"` opens the session before the prompt too (nothing waits to be typed) and
acts on PROMPT as the first line entered.

Ctrl-C while the agent works aborts that turn (the transcript stays paired) and returns to the
prompt; Ctrl-C at the prompt clears the line; Ctrl-D or /exit leaves. What is typed while no
prompt is up waits on the terminal for the next one; a card that appears meanwhile takes it off
(it never answers the card) and it is given back as the next prompt's text (ui/typeahead.py).
SIGTERM and SIGHUP end the session, with the same cleanup as /exit.

This module owns the session's life: opening, servers, the prompt loop and Ctrl-C. The slash
commands are a table in cli/repl/slash_commands.py, the input line and its keys are cli/repl/input_line.py,
one message's turn is cli/repl/turns.py (what it mentions: cli/repl/mentions.py), and a `!cmd` line
is cli/repl/shell_lines.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from collections.abc import Coroutine, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from levelcode import __version__
from levelcode.cli.repl.input_line import PROMPT, complete_typed_path, input_line
from levelcode.cli.repl.resource_lines import ChangedResources
from levelcode.cli.repl.shell_lines import SHELL_MARK, run_shell_line
from levelcode.cli.repl.slash_commands import BY_NAME, run_slash_command
from levelcode.cli.repl.turns import send_message
from levelcode.ui.activity_line import SKIP_HINT, ActivityLine, naming
from levelcode.ui.typeahead import take_kept
from levelcode.ui.visible import visible_block

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import Completer

    from levelcode.cli.repl.mcp_prompt_parts import McpPromptParts
    from levelcode.cli.start.chat_parts import ChatSession
    from levelcode.cli.start.light_start import LightStart, SessionStart
    from levelcode.core.attachments import Attachment
    from levelcode.mcp.config.specs import ServerSpec
    from levelcode.ui.render import HeldNotices

INTERRUPTED_START = (
    "⏹ MCP start-up interrupted: servers that had not started are not running "
    "(/mcp shows which; /new tries again)"
)
HINT = "/help for commands · Ctrl-C aborts a turn · Ctrl-D leaves"
# What the session needs once the prompt is up (cli/start/chat_parts.py brings the MCP runtime, the agent and
# its tools): imported on a worker thread behind it.
BEHIND_THE_PROMPT = (
    "levelcode.cli.start.chat_parts",
    "levelcode.cli.repl.mcp_prompt_parts",
    "levelcode.cli.repl.mentions",
    "levelcode.cli.repl.server_requests",
    "levelcode.ui.approval_card",
    "levelcode.ui.render",
    "levelcode.ui.context_view",
    "levelcode.ui.spend_view",
    "levelcode.ui.mcp_views",
    "prompt_toolkit.application",
)


def _no_status(_names: Sequence[str]) -> AbstractContextManager[object]:
    return contextlib.nullcontext()


def _import_behind_the_prompt() -> None:
    for name in BEHIND_THE_PROMPT:
        importlib.import_module(name)


def repository_asks_for_servers(workspace: Path) -> bool:
    """Whether the workspace has an MCP file of its own: its servers may need approval cards."""
    from levelcode.mcp.config.files import WORKSPACE_MCP_FILES

    return any((workspace / relative).exists() for relative in WORKSPACE_MCP_FILES)


class Repl:
    mcp_parts: McpPromptParts  # set when the session opens
    notices: HeldNotices

    def __init__(self, light: LightStart) -> None:
        self.light = light
        self.console = Console()
        self.line = ActivityLine(self.console)  # what LevelCode waits for, while nothing else shows
        self._start: SessionStart | None = None  # the runtime, once loaded
        self._session: ChatSession | None = None
        self.completer: Completer | None = None  # Tab completes nothing until the session opens
        self.opening: asyncio.Future[None] | None = None  # the session opening behind the prompt
        self.turn: asyncio.Future[Any] | None = None  # what Ctrl-C aborts: a turn, or MCP start-up
        self.startup: asyncio.Future[None] | None = None  # the servers starting behind the prompt
        self.pending: list[Attachment] = []  # `!cmd` outputs, for the next message
        self.changed = ChangedResources(self.console, lambda: self.turn is None and self._prompt_up())
        self._prompt: PromptSession[str] | None = None

    @property
    def session(self) -> ChatSession:
        assert self._session is not None, "the session opens behind the first prompt"
        return self._session

    @property
    def opened_session(self) -> ChatSession | None:
        return self._session

    def banner(self) -> None:
        settings = self.light.provider_settings
        self.console.print(
            Text.assemble(
                ("LevelCode ", "bold"),
                (__version__, "dim"),
                (f" · {settings.provider}/{settings.model}", "cyan"),
                (f" · {self.light.workspace}", "dim"),
                self.sandbox_chip(),
            )
        )
        if self.light.resumed is not None:
            from levelcode.ui.session_view import render_recap

            self.console.print(render_recap(self.light.resumed, settings.model))

    def sandbox_chip(self) -> tuple[str, str]:
        from levelcode.cli.start.sandbox_choice import session_confinement

        sandbox = session_confinement(self.light.args, self.light.settings)  # probed once, then cached
        if not sandbox.available:
            return (" · no sandbox", "yellow")
        count = len(sandbox.hosts)
        hosts = f"{count} host{'s' if count > 1 else ''}" if count else "off"  # through the egress filter
        return (f" · sandbox, network {'on' if sandbox.network else hosts}", "dim")

    def _prompt_up(self) -> bool:
        return self._prompt is not None and self._prompt.app.is_running

    async def main(self) -> int:
        self._prompt = prompt = input_line(lambda: self.completer)
        self.banner()
        first: str | None = getattr(self.light.args, "prompt", None)  # `levelcode "PROMPT"`
        if first or repository_asks_for_servers(self.light.workspace):
            await self.open(cards=True)
        self.console.print(Text(HINT, style="dim"))
        if first and not await self.first_message(first):
            return 0
        while True:
            self.changed.say_pending()  # resources that changed while no prompt was up
            try:
                text = await prompt.prompt_async(
                    PROMPT, default=take_kept(), handle_sigint=False, pre_run=self.open_behind
                )
            except KeyboardInterrupt:
                continue
            except EOFError:
                return 0
            text = text.strip()
            if text and not await self.entered(text):
                return 0

    async def entered(self, text: str) -> bool:
        """Act on one line entered: a slash command, a shell line or a message. False: leave."""
        await self.opened()
        if text.startswith("/"):
            return await run_slash_command(self, text)
        if text.startswith(SHELL_MARK):
            await run_shell_line(self, text.removeprefix(SHELL_MARK))
            return True
        await self.servers_ready()
        self.changed.message_sent()
        await send_message(self, text)
        return True

    async def first_message(self, text: str) -> bool:
        """The prompt given on the command line: shown as if typed at the prompt, then acted on
        as a line entered there (a message, or a slash command). False: leave."""
        self.console.print(Text(f"{PROMPT}{visible_block(text)}"), soft_wrap=True)
        return await self.entered(text.strip())

    def open_behind(self) -> None:
        """Called as the first prompt starts: the session opens once it is drawn."""
        if self.opening is None and self._session is None:
            self.opening = asyncio.ensure_future(self.open(cards=False))

    async def open(self, *, cards: bool) -> None:
        """Load the rest and open the session, then pass the servers through the launch gate and
        start them in the background. `cards`: before the prompt, and the gate may ask; otherwise
        the prompt is up, only the user's own servers exist (nothing to ask), and what the gate
        says is printed above the prompt."""
        self.light.early.start_held()  # from the loop's thread: their parent-death signal follows it
        if not cards:
            await asyncio.to_thread(_import_behind_the_prompt)
        self._start = start = self.light.with_runtime()
        await start.mcp.begin_trusted()
        session = self._open_session(start)
        permitted: list[ServerSpec] = []
        if cards:
            await self.start_servers(self.admit(permitted))
        else:
            self.notices.hold()
            await self.admit(permitted)
            await self._show_held()  # no sandbox, config problems: above the prompt now, not later
        self.begin_startup(permitted)
        session.warm()

    def _open_session(self, start: SessionStart) -> ChatSession:
        """The session, with the REPL's cards, forms and notices; raises ProviderAuthError."""
        from prompt_toolkit.completion import merge_completers

        from levelcode.cli.repl.custom_commands import SlashNames
        from levelcode.cli.repl.mcp_prompt_parts import McpCompleter, McpPromptParts
        from levelcode.cli.repl.mentions import MentionCompleter
        from levelcode.cli.repl.server_requests import TerminalAnswers
        from levelcode.cli.start.chat_parts import open_session
        from levelcode.mcp.live.client_features import UserAnswers
        from levelcode.providers.base import Provider
        from levelcode.ui.activity_line import PausingApprover
        from levelcode.ui.approval_card import TerminalApprover
        from levelcode.ui.render import ConsoleSink, HeldNotices

        console, line = self.console, self.line
        approver = PausingApprover(TerminalApprover(console), line)
        self.notices = HeldNotices(ConsoleSink(console, line=line))

        def answers(provider: Provider) -> UserAnswers:
            return TerminalAnswers(console, approver, lambda: provider, line.hidden).answers()

        self._session = session = open_session(start, approver=approver, sink=self.notices, answers=answers)
        session.mcp.hear_resource_changes(self.changed.heard)
        self.mcp_parts = McpPromptParts(session.mcp)
        self.completer = merge_completers(
            [
                McpCompleter(self.mcp_parts, SlashNames(start.workspace, BY_NAME)),
                MentionCompleter(session.ctx),
            ]
        )
        complete_typed_path()  # an `@path` typed before there was anything to complete it
        return session

    async def opened(self) -> None:
        """Wait for the session opening behind the prompt (its failure is raised here)."""
        if self.opening is not None and not self.opening.done():
            with self.line.showing("starting the session", hint=""):
                await asyncio.shield(self.opening)
        elif self.opening is not None:
            self.opening.result()

    async def close(self) -> None:
        """The cleanup, whenever the REPL ends: the servers begun are ended."""
        opening = self.opening
        if opening is not None:
            opening.cancel()  # a no-op once it is done; then its failure, if any, is taken here
            with contextlib.suppress(BaseException):
                await opening
        if self._session is not None:
            await self._session.close()
        elif self._start is not None:
            await self._start.mcp.close()
        else:
            self.light.early.end_untaken()

    async def admit(self, permitted: list[ServerSpec]) -> None:
        permitted.extend(await self.session.admit())

    def begin_startup(self, permitted: Sequence[ServerSpec]) -> None:
        """The permitted servers go on starting behind the prompt; their notices wait for it."""
        self.session.mcp.starting = _no_status
        self.notices.hold()
        self.startup = asyncio.ensure_future(self.session.launch(permitted))
        self.startup.add_done_callback(lambda _task: asyncio.ensure_future(self._show_held()))

    async def _show_held(self) -> None:
        """Print the notices held back above the prompt (or now, when no prompt is up)."""
        from prompt_toolkit.application import run_in_terminal

        if self.notices.held:
            await run_in_terminal(self.notices.release)
        else:
            self.notices.release()  # nothing to show: the prompt is not redrawn for it

    async def servers_ready(self) -> None:
        """The first turn waits for the servers still starting: with progress, Ctrl-C skips them."""
        startup = self.startup
        if startup is not None and not startup.done():
            self.turn = startup
            try:
                names = self.session.mcp.still_starting
                with self.line.showing(naming("waiting for MCP servers", names), SKIP_HINT):
                    await asyncio.wait({startup})
            finally:
                self.turn = None
            if startup.cancelled():
                self.console.print(Text(INTERRUPTED_START, style="yellow"))
        self.notices.release()

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
        starting = naming("starting MCP servers", self.session.mcp.still_starting)
        return self.line.showing(starting, SKIP_HINT)

    def interrupt(self) -> bool:
        """Ctrl-C: abort the running turn; at the prompt it is a key, handled there."""
        if self.turn is not None and not self.turn.done():
            self.turn.cancel()
        return True
