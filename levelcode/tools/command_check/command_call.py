"""What a command safety rule sees — one command as a `Call` — and the small readers rules share:
options and their values, path checks, and ways to combine rules.

Pure apart from resolving paths. A rule sees one command (wrappers already peeled off) and yields
the reasons to flag it; yielding nothing means this rule saw no danger. When unsure, yield.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from levelcode.tools.command_check.command_paths import PathScope
from levelcode.tools.command_check.shell_words import Word


@dataclass(frozen=True)
class Call:
    """One command as a rule sees it, with ways to review the commands it embeds."""

    name: str  # the program's base name, lower-cased: "/bin/RM" -> "rm"
    args: tuple[Word, ...]
    scope: PathScope
    args_unknown: bool  # more arguments arrive at run time (xargs, find -exec {})
    piped_in: bool  # stdin is the previous pipeline stage's output
    stdin_text: str | None  # a here-document or here-string fed to it
    review_words: Callable[[tuple[Word, ...], bool], None]  # (embedded command, args_unknown)
    review_script: Callable[[str], None]  # embedded shell source (sh -c, eval, trap)
    stdin_file: Word | None = None  # the file its input is redirected from (`< FILE`)

    @property
    def stdin_unseen(self) -> bool:
        """Its input is text the command line does not show: a pipe or a file."""
        return self.piped_in or self.stdin_file is not None


Rule = Callable[[Call], Iterator[str]]


def split_options(args: Iterable[Word]) -> tuple[list[str], list[Word]]:
    """Options (`-x`, `--long=v`) and operands; everything after `--` is an operand."""
    options: list[str] = []
    operands: list[Word] = []
    ended = False
    for word in args:
        if not ended and word.text == "--":
            ended = True
        elif not ended and word.text.startswith("-") and len(word.text) > 1:
            options.append(word.text)
        else:
            operands.append(word)
    return options, operands


def short_letters(options: Iterable[str]) -> set[str]:
    return {letter for option in options if not option.startswith("--") for letter in option[1:]}


def cluster_letters(options: Iterable[str], takes_value: str) -> set[str]:
    """The letters of short-option clusters, read up to the first letter that takes a value (the
    rest of the cluster is that value: `-XPUT` is X with PUT, not X, P, U and T)."""
    letters: set[str] = set()
    for option in options:
        if option.startswith("--"):
            continue
        for letter in option[1:]:
            letters.add(letter)
            if letter in takes_value:
                break
    return letters


def has_long(options: Iterable[str], full: str, *, shortest: int = 4) -> bool:
    """Whether `--full` was given, also abbreviated as GNU tools accept (`--rec` for `--recursive`)."""
    for option in options:
        name = option.split("=", 1)[0]
        if option.startswith("--") and len(name) >= shortest and full.startswith(name):
            return True
    return False


def option_value(args: tuple[Word, ...], short: str | None, long: str) -> Word | None:
    """The value of `-s VALUE`, `-sVALUE`, `--long VALUE` or `--long=VALUE`, if given; also of a
    cluster such as `-sSLo FILE`, read as GNU tools do: the rest of the cluster, else the next word."""
    values = option_values(args, short, long)
    return values[0] if values else None


def option_values(args: tuple[Word, ...], short: str | None, long: str) -> list[Word]:
    """Every value given to an option that may repeat (`-e A -e B`), each read as `option_value`
    reads one; a word taken as a value is not read as an option again."""
    values: list[Word] = []
    index = 0
    while index < len(args) and args[index].text != "--":
        word = args[index]
        text = word.text
        following = args[index + 1 : index + 2]
        if text == long or (short is not None and text == short):
            values += following
            index += 1
        elif text.startswith(long + "="):
            values.append(Word(text.split("=", 1)[1], word.dynamic, word.pattern, word.quoted))
        elif short and text.startswith("-") and not text.startswith("--") and short[1] in text[1:]:
            rest = text[text.index(short[1], 1) + 1 :]
            if rest:
                values.append(Word(rest, word.dynamic, word.pattern, word.quoted))
            else:
                values += following
                index += 1
        index += 1
    return values


def all_of(*rules: Rule) -> Rule:
    """One rule that yields what each of `rules` yields (a program several tables know)."""

    def rule(call: Call) -> Iterator[str]:
        for each in rules:
            yield from each(call)

    return rule


def subcommands_rule(subcommands: frozenset[str], reason: str) -> Rule:
    def rule(call: Call) -> Iterator[str]:
        operands = split_options(call.args)[1]
        words = [word.text for word in operands[:2]]
        if words and (words[0] in subcommands or " ".join(words) in subcommands):
            yield f"{reason} ({call.name} {' '.join(words)})"

    return rule


def always(reason: str) -> Rule:
    def rule(call: Call) -> Iterator[str]:
        yield reason

    return rule


def path_checks(verb: str, call: Call, words: Iterable[Word]) -> Iterator[str]:
    for word in words:
        if problem := call.scope.write_problem(word):
            yield f"{verb} {problem}"
