"""Finding `@` mentions in a message: paths and quoted paths, MCP resources of configured servers
only, trailing punctuation left out, each once, and no mention inside a word (an e-mail address)."""

from __future__ import annotations

from levelcode.cli.repl.mentions import Mention, attached_line, find_mentions
from levelcode.core.attachments import command_attachment, file_attachment, folder_attachment

SERVERS = {"everything", "my.server"}


def test_paths_and_resources_are_told_apart() -> None:
    text = (
        "look at @src/app.py, then @README.md. and @everything:demo://doc/1 "
        '@"notes/my file.md" @notes:todo.md (@my.server:file:///x) @src/app.py again'
    )
    assert find_mentions(text, SERVERS) == [
        Mention("src/app.py", None, "src/app.py"),
        Mention("README.md", None, "README.md"),
        Mention("everything:demo://doc/1", "everything", "demo://doc/1"),
        Mention("notes/my file.md", None, "notes/my file.md"),
        Mention("notes:todo.md", None, "notes:todo.md"),  # no server named notes: a path
    ]


def test_what_is_not_a_mention() -> None:
    for text in ("mail me@example.com", "just @", "@@", "a@b c@d", "@.,;"):
        assert find_mentions(text, SERVERS) == [], text
    assert find_mentions("(@my.server:file:///x)", SERVERS) == []  # a mention starts a word
    assert find_mentions("@everything:", SERVERS) == [Mention("everything", None, "everything")]


def test_one_line_says_what_was_attached() -> None:
    attached = (
        file_attachment("src/app.py", "x" * 1204, size=1204),
        file_attachment("big.log", "y", size=100_000, cut_note="[cut]"),
        folder_attachment("docs", "a.md"),
        command_attachment("make test", "ok"),
    )
    assert attached_line(attached) == (
        "attached: @src/app.py (1,204 chars) · @big.log (cut, 100,000 in all) · @docs/ (listing)"
        " · !make test (output)"
    )
