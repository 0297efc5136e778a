"""Typed command lines for `mcp add`. Load-bearing direction: nothing in the line is ever expanded,
globbed or run — `$HOME`, `*`, `;` and backticks stay literal text. The second corpus: quotes are
honoured the way a shell user expects, so a path with spaces stays one argument."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.core.errors import ConfigError
from levelcode.mcp.config.argv import split_command_line

LITERAL = [
    ("echo $HOME", ["echo", "$HOME"]),
    ("ls *.py", ["ls", "*.py"]),
    ("a; rm -rf /", ["a;", "rm", "-rf", "/"]),
    ("x `id` $(id)", ["x", "`id`", "$(id)"]),
    ("npx ~/server", ["npx", "~/server"]),
    ("a # not a comment", ["a", "#", "not", "a", "comment"]),
]

QUOTED = [
    ('-y pkg "/Users/me/My Documents"', ["-y", "pkg", "/Users/me/My Documents"]),
    ("npx -y '@scope/pkg' 'a b'", ["npx", "-y", "@scope/pkg", "a b"]),
    (r"run a\ b", ["run", "a b"]),
    ('x "it\'s"', ["x", "it's"]),
]


@pytest.mark.parametrize(("line", "expected"), LITERAL)
def test_nothing_is_expanded_or_globbed(line: str, expected: list[str]) -> None:
    assert split_command_line(line) == expected


@pytest.mark.parametrize(("line", "expected"), QUOTED)
def test_quotes_are_honoured(line: str, expected: list[str]) -> None:
    assert split_command_line(line) == expected


@pytest.mark.parametrize("line", ['npx "unclosed', "", "   "])
def test_unsplittable_lines_are_clear_errors(line: str) -> None:
    with pytest.raises(ConfigError):
        split_command_line(line)


@given(
    st.lists(
        st.text(alphabet=st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=12),
        min_size=1,
        max_size=5,
    )
)
def test_property_quoted_words_round_trip(words: list[str]) -> None:
    import shlex

    assert split_command_line(shlex.join(words)) == words
