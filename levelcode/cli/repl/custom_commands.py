"""The REPL's custom slash commands (agent/custom_commands.py): running one — first a line saying
whose text it is and which file it came from, then its message, with what the arguments
mention attached — and their lines in /help, each with its file, and the files not used or not
read with why. Every word a file wrote is made safe for the terminal before it is shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from levelcode.agent.custom_commands import (
    CommandShelf,
    CustomCommand,
    command_message,
    command_names,
    find_commands,
)
from levelcode.ui.visible import visible

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Iterator
    from pathlib import Path

    from levelcode.cli.repl.face import ReplFace

MAX_SHOWN_DESCRIPTION = 70


def shelf_of(repl: ReplFace, taken: Collection[str]) -> CommandShelf:
    """The custom commands now (files are read each time: an edit counts at once)."""
    return find_commands(repl.light.workspace, taken)


class SlashNames:
    """What Tab completes after `/`: the table's names and the custom commands' (the folders are
    listed anew each time it is iterated, their files not read)."""

    def __init__(self, workspace: Path, table: Iterable[str]) -> None:
        self.workspace = workspace
        self.table = tuple(table)

    def __iter__(self) -> Iterator[str]:
        return iter({*self.table, *command_names(self.workspace)})


async def run_custom_command(repl: ReplFace, command: CustomCommand, arguments: str) -> None:
    """Say whose text it is and where it came from, then send it (what the arguments mention
    attached, not what the file mentions)."""
    from levelcode.cli.repl.turns import send_message

    await repl.servers_ready()
    style = "yellow" if command.origin == "repository" else "dim"
    repl.console.print(Text(visible(source_line(command)), style=style), soft_wrap=True)
    await send_message(repl, command_message(command, arguments), typed=arguments)


def source_line(command: CustomCommand) -> str:
    if command.origin == "repository":
        return (
            f"{command.name}: the repository's command, from {command.shown_path} — sent to the "
            "model as the repository's text (it grants nothing; tools still ask)"
        )
    return f"running {command.name} ({command.shown_path})"


def help_sections(shelf: CommandShelf) -> list[str]:
    """/help's lines for the custom commands: a heading per origin, then the files not used or
    not read (headings end with a colon; the rest is indented by /help)."""
    sections: list[str] = []
    for origin, heading in (
        ("yours", "Your commands:"),
        (
            "repository",
            "The repository's commands (its text, marked as such to the model; they grant nothing):",
        ),
    ):
        lines = [_line(c) for c in shelf.commands.values() if c.origin == origin]
        sections += [heading, *lines] if lines else []
    skipped = [f"not used: {c.shown_path} ({why})" for c, why in shelf.unused] + shelf.problems
    return sections + (["Command files not used:", *(visible(line) for line in skipped)] if skipped else [])


def _line(command: CustomCommand) -> str:
    usage = f"{command.name} {command.hint}".strip()
    about = " ".join(command.description.split())
    if len(about) > MAX_SHOWN_DESCRIPTION:
        about = about[: MAX_SHOWN_DESCRIPTION - 1] + "…"
    return visible(f"{usage:<18} {about}  ({command.shown_path})")
