"""The classifier's shell parser: words, quoting, operators, redirections, here-documents and
substitutions; and anything it cannot follow is reported as a problem, never silently dropped."""

from __future__ import annotations

import pytest

from levelcode.tools.command_check.shell_words import Word, parse_script


def _words(source: str) -> list[list[str]]:
    return [[word.text for word in command.words] for command in parse_script(source).commands]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("ls -la", [["ls", "-la"]]),
        ("r''m -rf x", [["rm", "-rf", "x"]]),
        ('"a b" c\\ d', [["a b", "c d"]]),
        ("$'\\x72\\155\\n'", [["rm\n"]]),
        ("a; b && c || d | e & f\ng", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"], ["g"]]),
        ("(a) { b; }", [["a"], ["{", "b"], ["}"]]),
        ("echo a#b # c", [["echo", "a#b"]]),
        ("line\\\ncontinued", [["linecontinued"]]),
        ("FOO=1 cmd", [["FOO=1", "cmd"]]),
        ("a|&b", [["a"], ["b"]]),
    ],
)
def test_words_and_commands(source: str, expected: list[list[str]]) -> None:
    parsed = parse_script(source)
    assert parsed.problems == ()
    assert _words(source) == expected


def test_word_flags() -> None:
    words = parse_script("echo $HOME '$HOME' *.py '*.py' {a,b} [ x ]").commands[0].words
    assert [(w.dynamic, w.pattern) for w in words[1:]] == [
        (True, False),
        (False, False),
        (False, True),
        (False, False),
        (False, True),
        (False, False),
        (False, False),
        (False, False),
    ]


def test_pipes_mark_stdin() -> None:
    commands = parse_script("a | b; c | (d)").commands
    assert [command.piped_in for command in commands] == [False, True, False, True]


def test_redirections() -> None:
    command = parse_script("cmd >out 2>>err &>both <in 3>&1").commands[0]
    assert [(r.op, r.fd, r.target.text) for r in command.redirects] == [
        (">", "", "out"),
        (">>", "2", "err"),
        ("&>", "", "both"),
        ("<", "", "in"),
        (">&", "3", "1"),
    ]
    assert command.words == [Word("cmd")]


def test_here_documents_keep_their_bodies() -> None:
    parsed = parse_script("cat <<EOF >x\n$(inner)\nEOF\ncat <<-'END'\n\t$(literal)\n\tEND\necho after")
    bodies = [r.heredoc for command in parsed.commands for r in command.redirects if r.heredoc is not None]
    assert bodies == ["$(inner)", "\t$(literal)"]
    assert parsed.substitutions == ("inner",)  # quoted delimiter: no expansion, nothing runs
    assert _words("cat <<EOF\nbody\nEOF\necho after") == [["cat"], ["echo", "after"]]


def test_substitutions_are_collected_at_every_position() -> None:
    parsed = parse_script('a $(b) "$(c)" `d` <(e) >(f) ${x:-$(g)} "`h`"')
    assert parsed.substitutions == ("b", "c", "d", "e", "f", "g", "h")
    assert parsed.fed == ("f",)


def test_nested_substitutions_come_out_whole() -> None:
    assert parse_script("echo $(a $(b) 'c)' \")\")").substitutions == ("a $(b) 'c)' \")\"",)


@pytest.mark.parametrize(
    "source",
    [
        "echo 'open",
        'echo "open',
        "echo $(open",
        "echo `open",
        "echo ${open",
        "echo $'open",
        "cat <<EOF\nbody",
        "cat <<EOF",
        "a )",
        "( a",
        "a >",
        "a > ;",
        "echo \\",
        "f() { a; }",
    ],
)
def test_what_cannot_be_followed_is_a_problem(source: str) -> None:
    assert parse_script(source).problems
