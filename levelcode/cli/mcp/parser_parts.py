"""The pieces every `levelcode mcp` action's parser shares: the parser class that lets several
values follow one `-e`/`-H`, and the small argument sets most actions take. Only argparse."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from levelcode.cli.parser_base import CommandParser
from levelcode.mcp.config.argv import is_env_entry, is_header_entry, is_url

AddOptions = Callable[[argparse.ArgumentParser], None]
# The options after which, as in Claude Code's `-e <env...>` and `-H <header...>`, several values
# may follow one flag: each word that reads as one (KEY=VALUE, Key: Value) until the next option.
SEVERAL_VALUES: Mapping[str, Callable[[str], bool]] = {
    "-e": is_env_entry,
    "--env": is_env_entry,
    "-H": is_header_entry,
    "--header": is_header_entry,
}


class ActionParser(CommandParser):
    """The parser of one `levelcode mcp` action. `several`: its options that take several values
    after one flag; they are given one flag each before argparse reads the words, up to `--` or
    the server's command (whose words are its own), so NAME after them stays NAME."""

    def __init__(self, *, several: Mapping[str, Callable[[str], bool]] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._several = several or {}

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        if args is not None and self._several:
            args = self.one_flag_each(list(args))
        return super().parse_known_args(args, namespace)

    def one_flag_each(self, words: Sequence[str]) -> list[str]:
        out: list[str] = []
        index, positionals, several = 0, 0, None
        while index < len(words):
            word = words[index]
            index += 1
            if word == "--":
                return [*out, word, *words[index:]]
            if several is not None and self._several[several](word):
                out += [several, word]
                continue
            several = None
            if word.startswith("-") and len(word) > 1:
                out.append(word)
                action = self.filled()._option_string_actions.get(word)
                if action is not None and action.nargs != 0 and index < len(words):
                    out.append(words[index])  # its value, whatever it looks like
                    index += 1
                    several = word if word in self._several else None
                continue
            out.append(word)
            positionals += 1
            if positionals > 1 and not is_url(word):  # the command starts: the rest is its own
                return [*out, *words[index:]]
        return out


def with_common(common: AddOptions, own: Callable[[CommandParser], None]) -> Callable[[CommandParser], None]:
    """A fill: the common options, then the action's own arguments."""

    def fill(parser: CommandParser) -> None:
        common(parser)
        own(parser)

    return fill


def one_server(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("server", help="server name as configured")


def json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def name_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME")
