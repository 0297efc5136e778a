"""The slash-command table: every command /help names is one the REPL runs, and the reverse
(an alias, a row with no lines of its own, excepted)."""

from __future__ import annotations

from levelcode.cli.repl_commands import BY_NAME, COMMANDS, help_text


def test_help_names_every_command_of_the_table() -> None:
    shown = help_text()
    for command in COMMANDS:
        for line in command.help:
            assert f"  {line}" in shown
            assert line.startswith(command.name)
    named = {line.split()[0] for line in shown.splitlines() if line.startswith("  /")}
    assert {name for name in named if ":" not in name} == {c.name for c in COMMANDS if c.help}


def test_names_are_unique_lowercase_slash_words() -> None:
    assert len(BY_NAME) == len(COMMANDS)
    assert all(name.startswith("/") and name == name.lower() and " " not in name for name in BY_NAME)


def test_help_gives_the_attachment_cap_it_enforces() -> None:
    from levelcode.tools.file_mentions import MAX_ATTACHED_FILE_CHARS

    assert f"up to {MAX_ATTACHED_FILE_CHARS:,} characters" in help_text()
