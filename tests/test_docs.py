"""The README and the pages under docs/ hold to this checkout: every relative link reaches a file,
and every `#anchor` a heading of it (named as GitHub names headings); every `levelcode …` command
they show parses with the real command line's parser (`parse_arguments` in cli/main.py, and for
`mcp add` the second pass that reads the options typed after NAME).

Commands are the lines of `sh` (or unmarked) code blocks, and inline code spans, whose words
start with `levelcode` — after `$ `, after `VAR=value` words, or after `uv run` — and each part
of a line joined by `|`, `&&`, `||` or `;`; a redirection ends the command's words. Output and
JSON are shown in `text` and `json` blocks, which are not read as commands.

Load-bearing direction: a link to a missing file or heading, and a command the parser refuses,
fail here. The second corpus: the probes below, of forms that must be recognised and must pass.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from levelcode.cli.main import parse_arguments
from levelcode.cli.mcp.add import add_request
from levelcode.core.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COMMAND_BLOCKS = {"", "sh", "bash", "shell", "console"}
FENCE = re.compile(r"^\s*(```|~~~)\s*([\w-]*)")
INLINE_CODE = re.compile(r"(`+)(.+?)\1", re.DOTALL)
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
SEPARATORS = {"|", "||", "&&", ";", "&"}
ENV_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
REDIRECTION = re.compile(r"[<>]+&?")


@dataclass(frozen=True)
class Page:
    prose: str  # the text outside code blocks
    blocks: tuple[tuple[str, tuple[str, ...]], ...]  # (info string, lines) of each fenced block


def read_page(text: str) -> Page:
    prose: list[str] = []
    blocks: list[tuple[str, tuple[str, ...]]] = []
    fence: tuple[str, str] | None = None
    body: list[str] = []
    for line in text.splitlines():
        opened = FENCE.match(line)
        if fence is None and opened:
            fence, body = (opened.group(1), opened.group(2).lower()), []
        elif fence is not None and line.strip().startswith(fence[0]):
            blocks.append((fence[1], tuple(body)))
            fence = None
        elif fence is not None:
            body.append(line)
        else:
            prose.append(line)
    return Page("\n".join(prose), tuple(blocks))


@cache
def page_of(path: Path) -> Page:
    return read_page(path.read_text(encoding="utf-8"))


def heading_anchors(page: Page) -> set[str]:
    """The anchors GitHub gives the headings: lower case, punctuation dropped, spaces as hyphens,
    a repeated one numbered."""
    anchors: set[str] = set()
    for line in page.prose.splitlines():
        heading = HEADING.match(line)
        if heading is None:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.group(1))
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        numbered, n = slug, 0
        while numbered in anchors:
            n += 1
            numbered = f"{slug}-{n}"
        anchors.add(numbered)
    return anchors


def relative_links(page: Page) -> list[str]:
    text = INLINE_CODE.sub("", page.prose)
    targets = [match.group(1) for match in LINK.finditer(text)]
    return [target for target in targets if not re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", target)]


def broken_link(source: Path, target: str) -> str | None:
    """Why `target`, linked from `source`, does not resolve; None when it does."""
    path_text, _, anchor = target.partition("#")
    path = (source.parent / path_text).resolve() if path_text else source
    if not path.exists():
        return f"{target}: no such file"
    if anchor and path.suffix == ".md" and anchor not in heading_anchors(page_of(path)):
        return f"{target}: no heading #{anchor} in {path.name}"
    return None


def shown_commands(page: Page) -> list[str]:
    lines = [line for info, body in page.blocks if info in COMMAND_BLOCKS for line in _joined(body)]
    spans = [" ".join(match.group(2).split()) for match in INLINE_CODE.finditer(page.prose)]
    return [line for line in [*lines, *spans] if "levelcode" in line]


def _joined(lines: tuple[str, ...]) -> list[str]:
    """Lines with their backslash continuations joined."""
    joined: list[str] = []
    pending = ""
    for line in lines:
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
        else:
            joined.append(pending + line)
            pending = ""
    return joined


def levelcode_words(line: str) -> list[list[str]]:
    """The arguments of each `levelcode` command on a shell line (after the word `levelcode`)."""
    lexer = shlex.shlex(line.removeprefix("$ "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # an unclosed quote: prose, not a command
        return []
    commands: list[list[str]] = []
    part: list[str] = []
    for token in [*tokens, ";"]:
        if token in SEPARATORS:
            commands.extend(_levelcode_part(part))
            part = []
        else:
            part.append(token)
    return commands


def _levelcode_part(words: list[str]) -> list[list[str]]:
    while words and ENV_WORD.match(words[0]):
        words = words[1:]
    if words[:2] == ["uv", "run"]:
        words = words[2:]
    if not words or words[0] != "levelcode":
        return []
    arguments: list[str] = []
    for word in words[1:]:
        if REDIRECTION.fullmatch(word):  # what follows is the shell's, not levelcode's
            if arguments and arguments[-1].isdigit():  # the 2 of `2>&1`, a word to shlex
                arguments.pop()
            break
        arguments.append(word)
    return [arguments]


def parse_failure(arguments: list[str]) -> str | None:
    """What the real parser says about these arguments; None when it takes them."""
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said), contextlib.redirect_stdout(io.StringIO()):
            parsed = parse_arguments(arguments)
    except SystemExit as stop:
        return None if stop.code in (0, None) else said.getvalue().strip().splitlines()[-1]
    return _mcp_add_failure(parsed)


def _mcp_add_failure(parsed: argparse.Namespace) -> str | None:
    if getattr(parsed, "command", None) != "mcp" or parsed.mcp_command != "add":
        return None
    try:
        add_request(parsed)
    except ConfigError as exc:
        return str(exc)
    return None


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_the_pages_are_found() -> None:
    names = {_name(path) for path in PAGES}
    assert {"README.md", "docs/README.md", "docs/architecture.md"} <= names
    assert len(PAGES) > 10


def test_the_readme_is_a_front_door() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 300


@pytest.mark.parametrize("path", PAGES, ids=_name)
def test_every_relative_link_resolves(path: Path) -> None:
    page = page_of(path)
    assert [why for target in relative_links(page) if (why := broken_link(path, target))] == []


@pytest.mark.parametrize("path", PAGES, ids=_name)
def test_every_levelcode_command_shown_parses(path: Path) -> None:
    failures = [
        f"{line}: {why}"
        for line in shown_commands(page_of(path))
        for arguments in levelcode_words(line)
        if (why := parse_failure(arguments))
    ]
    assert failures == []


def test_every_page_is_in_the_docs_index() -> None:
    listed = {target.partition("#")[0] for target in relative_links(page_of(ROOT / "docs" / "README.md"))}
    pages = {path.name for path in PAGES if path.parent.name == "docs" and path.name != "README.md"}
    assert pages - listed == set()


# The second corpus: what the readers above must find, and what the checks must refuse.

PROBE = """\
# Title

## A heading: with `code`, punctuation — and more

## A heading: with `code`, punctuation — and more

See [the title](#title), [the same twice](#a-heading-with-code-punctuation--and-more-1),
[a page](other.md), [the web](https://example.com), `[not a link](nowhere.md)`, and
`levelcode run "inline"` with `levelcode mcp list --json | head -1`.

```sh
$ levelcode --autopilot
levelcode "fix the failing test" --model m
ANTHROPIC_API_KEY=sk-ant-... levelcode run - < task.md   # a comment
cd ~/x && uv run levelcode -C . \\
  --add-dir ~/notes
echo hi | levelcode run
levelcode run "and more" 2>&1 | tee out.txt
levelcode mcp add fs -- npx -y pkg
```

```text
levelcode 0.1.0
```
"""


def test_the_readers_find_links_anchors_and_commands() -> None:
    page = read_page(PROBE)
    assert relative_links(page) == ["#title", "#a-heading-with-code-punctuation--and-more-1", "other.md"]
    assert heading_anchors(page) == {
        "title",
        "a-heading-with-code-punctuation--and-more",
        "a-heading-with-code-punctuation--and-more-1",
    }
    words = [arguments for line in shown_commands(page) for arguments in levelcode_words(line)]
    assert words == [
        ["--autopilot"],
        ["fix the failing test", "--model", "m"],
        ["run", "-"],
        ["-C", ".", "--add-dir", "~/notes"],
        ["run"],
        ["run", "and more"],
        ["mcp", "add", "fs", "--", "npx", "-y", "pkg"],
        ["run", "inline"],
        ["mcp", "list", "--json"],
    ]
    assert all(parse_failure(arguments) is None for arguments in words)


def test_a_broken_link_and_anchor_are_named(tmp_path: Path) -> None:
    source = tmp_path / "page.md"
    source.write_text("# Here\n", encoding="utf-8")
    assert broken_link(source, "#here") is None
    assert broken_link(source, "missing.md") == "missing.md: no such file"
    assert broken_link(source, "page.md#there") == "page.md#there: no heading #there in page.md"


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--no-such-flag"], "unrecognized arguments: --no-such-flag"),
        (["mcp", "launch"], "invalid choice: 'launch'"),
        (["rnu", "the tests"], "'rnu' is not a command"),
        (["mcp", "add", "api", "https://example.com/mcp"], "say how to reach it"),
        (["mcp", "add", "e", "--replace", "A=1", "--", "x"], "an env entry follows -e"),
    ],
)
def test_a_command_the_cli_refuses_is_named(arguments: list[str], said: str) -> None:
    why = parse_failure(arguments)
    assert why is not None
    assert said in why
