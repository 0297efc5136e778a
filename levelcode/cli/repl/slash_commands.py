"""The REPL's slash commands, in one table (`COMMANDS`): each row is the command's name, its
handler and its lines in /help. A new command is a handler (here, or in a module of its own) and
one row; /help and Tab completion follow from the table.

A handler gets the REPL (cli/repl/prompt_loop.py) and the words typed after the name, and returns False to
leave the session. `/SERVER:PROMPT` (an MCP server's prompt) is no row: any name with a colon is one.
Any other name no row has is looked up among the custom commands (cli/repl/custom_commands.py),
which can never take a name of the table.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from levelcode.ui.visible import visible

if TYPE_CHECKING:
    from levelcode.cli.repl.face import ReplFace

Handler = Callable[["ReplFace", list[str]], Awaitable[bool]]


@dataclass(frozen=True)
class SlashCommand:
    name: str
    run: Handler
    help: tuple[str, ...]  # its lines in /help, the first starting with its name


async def show_help(repl: ReplFace, _words: list[str]) -> bool:
    from levelcode.cli.repl.custom_commands import help_sections, shelf_of

    custom = help_sections(shelf_of(repl, BY_NAME))
    repl.console.print(help_text(custom), markup=False, highlight=False)
    return True


async def mcp(repl: ReplFace, words: list[str]) -> bool:
    """`/mcp` lists; `/mcp stop NAME` ends a server now; `/mcp restart NAME` starts it again;
    `/mcp revoke NAME` forgets its approval; `/mcp disable|enable NAME` turns it off (or on) in
    this workspace's repository."""
    if not words:
        from levelcode.ui.mcp_views_terminal import print_list
        from levelcode.ui.mcp_words import restart_hint

        view = repl.session.mcp.list_view(take_errors=True)
        print_list(repl.console, view)
        if (hint := restart_hint(view.summaries)) is not None:
            repl.console.print(Text(hint, style="dim"))
        return True
    action, names = words[0], words[1:]
    if action not in ("stop", "restart", "revoke", "enable", "disable") or len(names) != 1:
        usage = "usage: /mcp · /mcp stop|restart|revoke|disable|enable NAME"
        repl.console.print(Text(usage, style="yellow"))
        return True
    if action == "restart":
        from levelcode.cli.repl.server_restart import restart_one

        await restart_one(repl, names[0])
        return True
    if action in ("enable", "disable"):
        from levelcode.cli.repl.profiles import toggle_here

        await toggle_here(repl, action, names[0])
        return True
    from levelcode.ui.mcp_words import revoked_words, stopped_words

    runtime = repl.session.mcp
    if action == "stop":
        lines = stopped_words(await runtime.stop(names[0]))
    else:
        lines = revoked_words(await runtime.revoke(names[0]))
    for line in lines:
        repl.console.print(Text(visible(line)))
    return True


async def profile(repl: ReplFace, words: list[str]) -> bool:
    from levelcode.cli.repl.profiles import profile_command

    return await profile_command(repl, words)


async def context(repl: ReplFace, _words: list[str]) -> bool:
    from levelcode.ui.context_view import render_context

    session = repl.session
    shown = render_context(session.context_usage(), last=session.agent.last_usage)
    repl.console.out(shown, highlight=False)
    return True


async def cost(repl: ReplFace, _words: list[str]) -> bool:
    from levelcode.ui.spend_view import render_spend

    agent = repl.session.agent
    repl.console.out(render_spend(agent.spend, agent.provider.settings.model), highlight=False)
    return True


async def model(repl: ReplFace, words: list[str]) -> bool:
    from levelcode.cli.repl.model_command import model_command

    await model_command(repl.console, repl.session, words)
    return True


async def init(repl: ReplFace, _words: list[str]) -> bool:
    """`/init`: a turn asking the model to write AGENTS.md (its edit asks as edits do)."""
    from levelcode.agent.init_prompt import INIT_NOTE, init_prompt
    from levelcode.cli.repl.turns import send_message

    await repl.servers_ready()
    repl.console.print(Text(INIT_NOTE, style="dim"))
    await send_message(repl, init_prompt(repl.light.workspace), attach=False)
    return True


async def add_dir(repl: ReplFace, words: list[str]) -> bool:
    folder = Path(" ".join(words)).expanduser() if words else None
    if folder is None or not folder.is_dir():
        repl.console.print(Text("usage: /add-dir DIR (an existing directory)", style="yellow"))
        return True
    repl.session.add_folder(folder.resolve())
    added = f"Added {folder.resolve()}: the tools may use it, and servers are told."
    repl.console.print(Text(visible(added), style="green"))
    return True


async def compact(repl: ReplFace, _words: list[str]) -> bool:
    work = asyncio.ensure_future(repl.session.agent.compact("/compact", keep="turn"))
    repl.turn = work
    try:
        try:
            compacted = await work  # the agent says it compacts: the activity line shows it
        finally:
            repl.line.clear()
    except asyncio.CancelledError:
        if not work.cancelled():
            raise
        repl.console.print(Text("⏹ compaction stopped; the conversation is as it was", style="yellow"))
        return True
    finally:
        repl.turn = None
    if not compacted:
        repl.console.print(Text("Nothing to compact yet: the conversation is one turn long.", "dim"))
    return True


async def new(repl: ReplFace, _words: list[str]) -> bool:
    await repl.servers_ready()
    repl.pending.clear()  # `!cmd` outputs kept for the old conversation
    await repl.start_servers(repl.session.reset())
    repl.console.print(Text("New chat.", style="green"))
    return True


async def leave(_repl: ReplFace, _words: list[str]) -> bool:
    return False


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("/help", show_help, ("/help      this help",)),
    SlashCommand(
        "/mcp",
        mcp,
        (
            "/mcp       MCP servers: state, origin, command, tools (allow/ask)",
            "/mcp stop NAME     end one server now (whole process group); /new starts it again",
            "/mcp restart NAME  end one server and start it again (one that failed, crashed or hangs)",
            "/mcp revoke NAME   forget a repository server's approval here (it keeps running unless stopped)",
            "/mcp disable NAME  turn a server off here (every worktree of the repository); enable: on again",
        ),
    ),
    SlashCommand(
        "/profile",
        profile,
        ('/profile [NAME]    list the profiles, or start only NAME\'s servers ("/profile -": every server)',),
    ),
    SlashCommand(
        "/context",
        context,
        ("/context   where the context goes: system prompt, tools (built-in, MCP per server), messages",),
    ),
    SlashCommand(
        "/cost",
        cost,
        ("/cost      tokens and cost: each turn's and the session's (prices: \"prices\" in settings)",),
    ),
    SlashCommand(
        "/model", model, ("/model [NAME]      list the provider's models, or switch this session to NAME",)
    ),
    SlashCommand(
        "/init",
        init,
        ("/init      have the model look at the repository and write AGENTS.md (or improve it)",),
    ),
    SlashCommand(
        "/add-dir",
        add_dir,
        ("/add-dir DIR       let the tools use DIR too, and tell the MCP servers that asked for roots",),
    ),
    SlashCommand(
        "/compact",
        compact,
        ("/compact   summarize the older turns now (it also happens by itself before the context is full)",),
    ),
    SlashCommand(
        "/new",
        new,
        ("/new       start a new chat (forgets the conversation, ends background commands, restarts MCP)",),
    ),
    SlashCommand("/clear", new, ("/clear     the same as /new (the old conversation stays saved)",)),
    SlashCommand(
        "/exit",
        leave,
        ("/exit      leave (also Ctrl-D); the session stays saved: levelcode -c or -r goes on with it",),
    ),
    SlashCommand("/quit", leave, ("/quit      the same as /exit",)),
)
BY_NAME = {command.name: command for command in COMMANDS}

# What /help says after the table: the MCP servers' own commands, what a message may hold, the keys.
SERVER_PROMPTS = "/SERVER:PROMPT ARG…   run an MCP server's prompt (Tab completes names and arguments)"
AT_THE_PROMPT = (
    "!COMMAND           run a shell line as the model's commands run (in the sandbox, no card: you",
    "                   typed it); its output goes to the model with your next message",
    "@PATH              attach a file (its text, up to 40,000 characters) or a folder's listing;",
    '                   only inside the workspace and added folders; Tab completes, @"a b" for spaces',
    "@SERVER:URI        attach that MCP resource (Tab completes servers and URIs)",
)
KEYS = """\
Keys: Enter sends · Alt-Enter (or Esc then Enter), or \\ at the end of a line then Enter: a new line
  (a pasted text stays one message) · Ctrl-C aborts the running turn, or clears the line · ↑/↓ history
Cards: a key counts once the card is ready (what you typed before comes back in the prompt)
  · an answer that is remembered or lifts the sandbox asks for Ctrl-Y · [v] shows cut text"""


def help_text(custom: Sequence[str] = ()) -> str:
    """/help: the table's commands, then `custom` (the custom commands' sections: headings end
    with a colon), what a message may hold, the keys."""
    commands = [*(line for command in COMMANDS for line in command.help), SERVER_PROMPTS]
    sections = ["Commands:", *commands, *custom, "At the prompt:", *AT_THE_PROMPT]
    return "\n".join([*(line if line.endswith(":") else f"  {line}" for line in sections), KEYS])


async def run_slash_command(repl: ReplFace, text: str) -> bool:
    """Run the command `text` names (False: leave the session)."""
    name, *words = text.split()
    command = BY_NAME.get(name.lower())
    if command is None and ":" in name:
        from levelcode.cli.repl.turns import run_server_prompt

        await run_server_prompt(repl, name, text[len(name) :])
        return True
    if command is None:
        return await _run_custom(repl, name, text[len(name) :])
    return await command.run(repl, words)


async def _run_custom(repl: ReplFace, name: str, arguments: str) -> bool:
    """A custom command (cli/repl/custom_commands.py), or a line saying there is none."""
    from levelcode.cli.repl.custom_commands import run_custom_command, shelf_of

    custom = shelf_of(repl, BY_NAME).commands.get(name.lower())
    if custom is None:
        repl.console.print(Text(visible(f"unknown command {name}; /help lists them"), style="yellow"))
        return True
    await run_custom_command(repl, custom, arguments)
    return True
