"""The interactive session: a prompt with history, streamed answers, approval cards, slash commands.

The prompt comes first. Before it: the settings, the provider's key, the user's own servers spawned
(as many as leave a core free; cli/interactive.py), prompt_toolkit and the banner — nothing else.
The rest of LevelCode (the MCP runtime, the agent, its tools and terminal views) is loaded behind
the prompt, off the event loop's thread so typing stays live, and the first line entered waits for
it. Then every permitted server goes on starting in the background; what that start has to say is
held while the prompt is up and shown above it when it ends, and the first turn waits for it, with
progress, bounded by the servers' own start-up timeouts (Ctrl-C skips the slow ones).

A repository that asks for servers (.levelcode/mcp.json, .mcp.json) is the exception: its servers
pass the launch gate first, and its approval cards need the terminal, so the session opens, and
asks, before the prompt.

Ctrl-C while the agent works aborts that turn (the transcript stays paired) and returns to the
prompt; Ctrl-C at the prompt clears the line; Ctrl-D or /exit leaves. What is typed while no
prompt is up waits on the terminal for the next one; a card that appears meanwhile takes it off
(it never answers the card) and it is given back as the next prompt's text (ui/typeahead.py).
SIGTERM and SIGHUP end the session, with the same cleanup as /exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from levelcode import __version__
from levelcode.core import paths
from levelcode.core.errors import ProviderError, TurnAborted
from levelcode.core.private_files import touch_private
from levelcode.ui.typeahead import take_kept
from levelcode.ui.visible import visible, visible_block

if TYPE_CHECKING:
    from prompt_toolkit.completion import Completer

    from levelcode.cli.repl_mcp import McpPromptParts
    from levelcode.cli.session import ChatSession
    from levelcode.cli.session_start import LightStart, SessionStart
    from levelcode.mcp.config.specs import ServerSpec
    from levelcode.ui.render import HeldNotices

HELP = """\
Commands:
  /help      this help
  /mcp       MCP servers: state, origin, command, tools (allow/ask)
  /mcp stop NAME     end one server now (whole process group); /new starts it again
  /mcp revoke NAME   forget a repository server's approval here (it keeps running unless stopped)
  /mcp disable NAME  turn a server off in this workspace (every worktree of the repository); enable: on
  /profile [NAME]    list the profiles, or start only NAME's servers ("/profile -": every server)
  /context   where the context goes: system prompt, tools (built-in, MCP per server), messages
  /cost      tokens and cost: each turn's and the session's (prices: "prices" in settings)
  /add-dir DIR       let the tools use DIR too, and tell the MCP servers that asked for roots
  /SERVER:PROMPT ARG…   run an MCP server's prompt (Tab completes names and arguments)
  @SERVER:URI        in a message: attach that MCP resource (Tab completes servers and URIs)
  /compact   summarize the older turns now (it also happens by itself before the context is full)
  /new       start a new chat (forgets the conversation, ends background commands, restarts MCP)
  /exit      leave (also Ctrl-D)
Keys: Enter sends · Ctrl-C aborts the running turn, or clears the line · ↑/↓ history
Cards: a key counts once the card is ready (what you typed before comes back in the prompt)
  · an answer that is remembered or lifts the sandbox asks for Ctrl-Y · [v] shows cut text"""

Command = Callable[[list[str]], Awaitable[bool]]  # given the words after the command; False to leave
INTERRUPTED_START = (
    "⏹ MCP start-up interrupted: servers that had not started are not running "
    "(/mcp shows which; /new tries again)"
)
HINT = "/help for commands · Ctrl-C aborts a turn · Ctrl-D leaves"
# What the session needs once the prompt is up (cli.session brings the MCP runtime, the agent and
# its tools): imported on a worker thread behind it.
BEHIND_THE_PROMPT = (
    "levelcode.cli.session",
    "levelcode.cli.repl_mcp",
    "levelcode.cli.server_requests",
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
        self._start: SessionStart | None = None  # the runtime, once loaded
        self._session: ChatSession | None = None
        self.completer: Completer | None = None  # Tab completes nothing until the session opens
        self.opening: asyncio.Future[None] | None = None  # the session opening behind the prompt
        self.turn: asyncio.Future[Any] | None = None  # what Ctrl-C aborts: a turn, or MCP start-up
        self.startup: asyncio.Future[None] | None = None  # the servers starting behind the prompt
        self.commands: dict[str, Command] = {
            "/mcp": self.mcp,
            "/profile": self.profile,
            "/context": self.context,
            "/cost": self.cost,
            "/add-dir": self.add_dir,
            "/compact": self.compact,
            "/help": self.help,
            "/new": self.new,
            "/exit": self.leave,
            "/quit": self.leave,
        }

    @property
    def session(self) -> ChatSession:
        assert self._session is not None, "the session opens behind the first prompt"
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

    def sandbox_chip(self) -> tuple[str, str]:
        from levelcode.cli.sandbox_setup import session_confinement

        sandbox = session_confinement(self.light.args, self.light.settings)  # probed once, then cached
        if not sandbox.available:
            return (" · no sandbox", "yellow")
        count = len(sandbox.hosts)
        hosts = f"{count} host{'s' if count > 1 else ''}" if count else "off"  # through the egress filter
        return (f" · sandbox, network {'on' if sandbox.network else hosts}", "dim")

    async def main(self) -> int:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.completion import DynamicCompleter
        from prompt_toolkit.history import FileHistory

        history = touch_private(paths.history_path())  # FileHistory appends; it never creates it 0600
        prompt: PromptSession[str] = PromptSession(
            history=FileHistory(str(history)),
            completer=DynamicCompleter(lambda: self.completer),
            complete_while_typing=False,
        )
        self.banner()
        if repository_asks_for_servers(self.light.workspace):
            await self.open(cards=True)
        self.console.print(Text(HINT, style="dim"))
        while True:
            try:
                text = await prompt.prompt_async(
                    "> ", default=take_kept(), handle_sigint=False, pre_run=self.open_behind
                )
            except KeyboardInterrupt:
                continue
            except EOFError:
                return 0
            text = text.strip()
            if not text:
                continue
            await self.opened()
            if text.startswith("/"):
                if not await self.command(text):
                    return 0
                continue
            await self.servers_ready()
            await self.run_turn(text)

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
        from levelcode.cli.repl_mcp import McpCompleter, McpPromptParts
        from levelcode.cli.server_requests import TerminalAnswers
        from levelcode.cli.session import open_session
        from levelcode.mcp.client_features import UserAnswers
        from levelcode.providers.base import Provider
        from levelcode.ui.approval_card import TerminalApprover
        from levelcode.ui.render import ConsoleSink, HeldNotices

        console = self.console
        approver, shown = TerminalApprover(console), ConsoleSink(console)
        self.notices = HeldNotices(shown)

        def answers(provider: Provider) -> UserAnswers:
            return TerminalAnswers(console, approver, lambda: provider, shown.stop_progress).answers()

        self._session = session = open_session(start, approver=approver, sink=self.notices, answers=answers)
        self.mcp_parts = McpPromptParts(session.mcp.hub)
        self.completer = McpCompleter(self.mcp_parts, self.commands)
        return session

    async def opened(self) -> None:
        """Wait for the session opening behind the prompt (its failure is raised here)."""
        if self.opening is not None and not self.opening.done():
            with self.console.status("starting the session…"):
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
            from levelcode.mcp.stdio.early import end_unclaimed

            end_unclaimed()

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
            from levelcode.ui.mcp_views import print_list

            print_list(self.console, self.session.mcp.list_view(take_errors=True))
            return True
        action, names = words[0], words[1:]
        if action not in ("stop", "revoke", "enable", "disable") or len(names) != 1:
            usage = "usage: /mcp · /mcp stop NAME · /mcp revoke NAME · /mcp disable NAME · /mcp enable NAME"
            self.console.print(Text(usage, style="yellow"))
            return True
        if action in ("enable", "disable"):
            from levelcode.cli.repl_profiles import toggle_here

            await toggle_here(self, action, names[0])
            return True
        lines = await (
            self.session.mcp.stop(names[0]) if action == "stop" else self.session.mcp.revoke(names[0])
        )
        for line in lines:
            self.console.print(Text(visible(line)))
        return True

    async def profile(self, words: list[str]) -> bool:
        from levelcode.cli.repl_profiles import profile_command

        return await profile_command(self, words)

    async def context(self, _words: list[str]) -> bool:
        from levelcode.ui.context_view import render_context

        self.console.out(
            render_context(self.session.context_usage(), last=self.session.agent.last_usage), highlight=False
        )
        return True

    async def cost(self, _words: list[str]) -> bool:
        from levelcode.ui.spend_view import render_spend

        agent = self.session.agent
        self.console.out(render_spend(agent.spend, agent.provider.settings.model), highlight=False)
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
        from levelcode.cli.repl_mcp import PromptError, split_words

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
            from levelcode.agent.events import Notice

            self.session.agent.sink.emit(Notice("⏹ aborted"))
        except ProviderError as exc:
            self.console.print(Text(f"error: {visible_block(str(exc))}", style="red"))
        finally:
            self.turn = None
            self.spend_line()

    def spend_line(self) -> None:
        """The turn's tokens and cost, one dim line (nothing when no request finished)."""
        from levelcode.ui.spend_view import turn_line

        spend = self.session.agent.spend
        if spend.turn.requests:
            self.console.print(Text(turn_line(spend.turn, spend.session), style="dim"))
