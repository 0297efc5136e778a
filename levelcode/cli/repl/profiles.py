"""The REPL's server sets: `/profile` (list the profiles, or switch to one: `/profile NAME`, back to
every server: `/profile -`) and `/mcp disable|enable NAME` (off in this workspace's repository,
every worktree of it, or on again).

Each change restarts the MCP servers through the launch gate, as `/new` does, without clearing the
conversation; what is typed meanwhile stays for the next prompt (the REPL's start_servers). The
organisation's policy still wins: a server it requires stays on, one it blocks stays blocked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from levelcode.agent.system_prompt import with_server_instructions
from levelcode.core.errors import ConfigError
from levelcode.mcp.config.server_selection import chosen_profile
from levelcode.platform.json_store import UnreadableFile
from levelcode.platform.workspace_identity import describe_identity, workspace_identity
from levelcode.platform.workspace_servers import turn_off
from levelcode.policy.profiles import PROFILES_KEY
from levelcode.ui.mcp_words import chip
from levelcode.ui.visible import visible

if TYPE_CHECKING:
    from levelcode.cli.repl.face import ReplFace
    from levelcode.cli.start.chat_parts import ChatSession

ALL_SERVERS = "-"
PROFILE_USAGE = "usage: /profile · /profile NAME · /profile - (every server)"


async def profile_command(repl: ReplFace, words: list[str]) -> bool:
    """`/profile`: the profiles and the one in use; `/profile NAME`: switch to it."""
    session = repl.session
    file = str(session.settings.user_file)
    profiles, current = session.mcp.config.profiles, session.mcp.config.profile  # parsed by its start
    if not words:
        lines = [
            f"  {name}: {', '.join(p.servers) or '(no servers)'}" for name, p in sorted(profiles.items())
        ]
        using = f"profile {current!r}" if current else "every server (no profile)"
        shown = lines or [
            f'  none: add "{PROFILES_KEY}" to {file}, e.g. {{"work": {{"servers": ["github"]}}}}'
        ]
        _say(repl, f"This session uses {using}. Profiles:", *shown, PROFILE_USAGE)
        return True
    if len(words) != 1:
        _say(repl, PROFILE_USAGE, style="yellow")
        return True
    wanted = None if words[0] == ALL_SERVERS else words[0]
    try:
        chosen_profile(profiles, wanted, file=file)
    except ConfigError as exc:
        _say(repl, str(exc), style="yellow")
        return True
    await restart_servers(repl, wanted)
    _say(
        repl,
        f"Now using profile {wanted!r}." if wanted else "Now using every server (no profile).",
        style="green",
    )
    return True


async def toggle_here(repl: ReplFace, action: str, name: str) -> None:
    """`/mcp disable NAME` / `/mcp enable NAME`: off (or on again) in this workspace, then restart."""
    session = repl.session
    spec = session.mcp.config.server(name)
    if spec is None:
        names = ", ".join(s.name for s in session.mcp.config.servers) or "none"
        _say(repl, f"no MCP server named {name!r} (configured: {names})", style="yellow")
        return
    if spec.organisation is not None and spec.organisation.required and action == "disable":
        refusal = session.mcp.config.managed.refusal("required", "it cannot be disabled")
        _say(repl, f"{name!r} is {refusal}", style="yellow")
        return
    try:
        changed = turn_off(session.workspace, name, action == "disable")
    except (UnreadableFile, OSError) as exc:
        _say(repl, f"could not keep the choice: {exc}", style="yellow")
        return
    where = describe_identity(workspace_identity(session.workspace))
    if not changed:
        _say(repl, f"{name!r} is already {'off' if action == 'disable' else 'on'} here ({where}).")
        return
    _say(
        repl,
        f"{'Disabled' if action == 'disable' else 'Enabled'} {name!r} in {where}; restarting MCP servers…",
    )
    await restart_servers(repl, session.mcp.config.profile)


async def restart_servers(repl: ReplFace, profile: str | None) -> None:
    """The servers of `profile` in place of the running ones, through the launch gate (its cards
    may ask), with the REPL's progress and Ctrl-C; the conversation is kept."""
    await repl.servers_ready()
    await repl.start_servers(_switched(repl.session, profile))
    summary = chip(repl.session.mcp.summaries(), deferred=repl.session.mcp.deferred_count())
    if summary:
        _say(repl, summary, style="dim")


async def _switched(session: ChatSession, profile: str | None) -> None:
    await session.mcp.switch_profile(profile)
    session.agent.system = with_server_instructions(session.base_system, session.mcp.instructions())


def _say(repl: ReplFace, *lines: str, style: str = "") -> None:
    for line in lines:
        repl.console.print(Text(visible(line), style=style))
