"""Where a prompt typed on the command line goes: `levelcode "PROMPT"` is the REPL's first message,
`levelcode -p "PROMPT"` a headless task, and a command's name (`levelcode run`) stays the command
— after `--` every word is the prompt. Parsed in process with the real parser.

Load-bearing direction: a prompt must never be taken for a command nor a command for a prompt, and
an option's value (`-C run`, `-r ID`) is never either; a word one typo away from a command is
refused rather than sent to the model. The second corpus: the forms that must parse as typed.
"""

from __future__ import annotations

import argparse

import pytest

from levelcode.cli.main import parse_arguments


def _parsed(*argv: str) -> argparse.Namespace:
    return parse_arguments(list(argv))


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as stopped:
        parse_arguments(argv)
    assert stopped.value.code == 2
    return capsys.readouterr().err


def test_a_prompt_without_a_command_is_the_repls_first_message() -> None:
    args = _parsed("fix the failing test")
    assert args.command is None
    assert args.prompt == "fix the failing test"
    assert not getattr(args, "print_mode", False)


def test_options_before_and_after_the_prompt_are_options() -> None:
    args = _parsed("--model", "m1", "fix it", "--autopilot", "-C", "/tmp")
    assert (args.prompt, args.model, args.autopilot, args.workspace) == ("fix it", "m1", True, "/tmp")


def test_unquoted_words_make_one_prompt() -> None:
    assert _parsed("fix", "the", "test").prompt == "fix the test"


def test_no_prompt_is_none() -> None:
    args = _parsed("--autopilot")
    assert args.command is None
    assert args.prompt is None


def test_a_commands_name_is_the_command_and_after_double_dash_a_prompt() -> None:
    run = _parsed("run", "do it")
    assert (run.command, run.prompt) == ("run", "do it")
    assert _parsed("mcp", "list").command == "mcp"
    for argv in (["--", "run"], ["--", "run", "the", "tests"], ["--autopilot", "--", "mcp", "list"]):
        args = _parsed(*argv)
        assert args.command is None
        assert args.prompt == " ".join(argv[argv.index("--") + 1 :])


def test_an_options_value_is_neither_prompt_nor_command() -> None:
    args = _parsed("-C", "run")
    assert (args.command, args.prompt, args.workspace) == (None, None, "run")
    resumed = _parsed("-r", "3f2a")
    assert (resumed.resume, resumed.prompt) == ("3f2a", None)
    assert _parsed("-r").resume == ""
    assert _parsed("--model=run", "hi").prompt == "hi"
    assert _parsed("-Crun", "hi").workspace == "run"


def test_a_word_one_typo_from_a_command_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    said = _refused(["rnu", "fix it"], capsys)
    assert "levelcode run" in said
    assert "levelcode -- rnu" in said
    assert "mcp" in _refused(["mpc", "list"], capsys)
    assert _parsed("--", "rnu").prompt == "rnu"  # the way to say it is a prompt
    assert _parsed("hello").prompt == "hello"


def test_print_mode_takes_the_prompt_and_an_output_format() -> None:
    args = _parsed("-p", "fix it")
    assert (args.command, args.print_mode, args.prompt) == (None, True, "fix it")
    late = _parsed("fix it", "--print", "--output-format", "stream-json")
    assert (late.print_mode, late.prompt, late.output_format) == (True, "fix it", "stream-json")
    piped = _parsed("-p")
    assert (piped.print_mode, piped.prompt) == (True, None)
    assert _parsed("-p", "-").prompt == "-"
    assert _parsed("run", "--output-format", "json", "x").output_format == "json"


def test_print_mode_and_output_format_misuse_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert "--output-format needs -p" in _refused(["--output-format", "json", "hi"], capsys)
    assert "-p runs a prompt" in _refused(["-p", "mcp", "list"], capsys)
    assert "invalid choice: 'yaml'" in _refused(["-p", "--output-format", "yaml", "hi"], capsys)
    assert "--json or --output-format" in _refused(["run", "--json", "--output-format", "json", "x"], capsys)


def test_help_says_how_to_pass_a_prompt_named_like_a_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_arguments(["--help"])
    shown = capsys.readouterr().out
    assert 'levelcode "PROMPT"' in shown
    assert 'levelcode -- "run the tests"' in shown
    assert "--output-format" in shown
    assert "-p, --print" in shown
