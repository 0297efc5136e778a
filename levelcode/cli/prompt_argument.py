"""Where a prompt typed on `levelcode`'s command line is: the first word that is neither an option,
an option's value nor a command's name, with every later word that is no option (`levelcode fix
the test` is one prompt); after `--`, every word. A command's name keeps meaning the command
(`levelcode run …`); `levelcode -- run` sends "run". A lone word one typo from a command's name is
refused, so `levelcode rnu "x"` is not a paid request.

Pure: reads the parser's option table, never parses, prints or exits by itself.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

PURE = True

END_OF_OPTIONS = "--"
# what the parser reads (the options and their values, or a command and its words), and the
# prompt's words joined by spaces (None when none was typed); a plain tuple: this module is
# imported by every `levelcode` command, and a dataclass costs its start-up half a millisecond
SplitLine = tuple[list[str], str | None]


def split_prompt(argv: Sequence[str], parser: argparse.ArgumentParser, commands: Sequence[str]) -> SplitLine:
    """The prompt taken out of `argv`, unless a command's name comes first (then `argv` is the
    command's, whole). Raises ValueError for a lone word one typo from a command's name."""
    options: list[str] = []
    words: list[str] = []
    index = 0
    while index < len(argv):
        word = argv[index]
        if word == END_OF_OPTIONS:
            words.extend(argv[index + 1 :])
            return options, " ".join(words)
        if word.startswith("-") and word != "-":
            taken = 1 + _values_taken(parser, word, argv[index + 1] if index + 1 < len(argv) else None)
            options.extend(argv[index : index + taken])
            index += taken
            continue
        if not words and word in commands:
            return list(argv), None
        if not words:
            _refuse_a_typo(word, commands)
        words.append(word)
        index += 1
    return options, " ".join(words) if words else None


def _values_taken(parser: argparse.ArgumentParser, word: str, following: str | None) -> int:
    """How many of the words after the option `word` are its values (0 or 1), as argparse reads
    them: `--opt=VALUE` and `-xVALUE` hold theirs; an optional value is taken unless it looks
    like an option; an option argparse does not know takes none (argparse refuses it)."""
    if word.startswith("--") and "=" in word:
        return 0
    action = parser._option_string_actions.get(word)  # argparse's own table of options
    if action is None:
        return 0  # `-Cdir`, `-cp` (held value or flags together), or unknown: no word after it
    if action.nargs == 0:
        return 0
    if action.nargs == argparse.OPTIONAL:
        return 1 if following is not None and not following.startswith("-") else 0
    return 1


def _refuse_a_typo(word: str, commands: Sequence[str]) -> None:
    if any(space in word for space in " \t\n"):
        return  # a quoted prompt, not a mistyped name
    import difflib  # only for a prompt's first word: `levelcode mcp list` never pays for it

    close = difflib.get_close_matches(word, commands, n=1, cutoff=0.6)
    if close:
        raise ValueError(
            f"{word!r} is not a command: did you mean levelcode {close[0]}? "
            f"To send it to the model as a prompt: levelcode -- {word} ..."
        )
