"""What a message mentions, attached to it before it is sent: `@path` (a file or folder inside
the allowed directories, tools/file_mentions.py) and `@server:uri` (a resource of a running MCP
server, cli/repl/mcp_prompt_parts.py). The message's text stays as typed; each attachment is a typed block
after it (core/attachments.py). What could not be attached is said in one line each, and what
was, in one dim line. Tab completes both (`MentionCompleter` for paths).

A mention starts a word: `@src/app.py`, `@"notes/my file.md"`; trailing punctuation is not part
of it (`see @README.md.`). `@name:rest` is a resource when `name` is a configured MCP server,
otherwise a path.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncGenerator, Collection, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from levelcode.core.attachments import Attachment
from levelcode.core.errors import ToolError
from levelcode.tools.base import ToolContext
from levelcode.tools.file_mentions import attach_path, path_completions

if TYPE_CHECKING:
    from levelcode.cli.repl.mcp_prompt_parts import McpPromptParts

MENTION = re.compile(r'(?<!\S)@(?:"([^"\n]+)"|([^\s@"]\S*))')
TYPED_MENTION = re.compile(r'(?:^|\s)(@(?:"[^"\n]*|[^\s"]*))$')  # the mention being typed, at the cursor
SERVER_NAME = re.compile(r"[A-Za-z0-9_.-]+")
TRAILING_PUNCTUATION = ".,;:!?)]}'\""
MAX_ATTACHMENTS = 20  # per message: each file is capped, so is their number


@dataclass(frozen=True)
class Mention:
    written: str  # what followed the `@`, quotes and trailing punctuation left out
    server: str | None  # the MCP server whose resource it is; None for a path
    target: str  # the path, or the resource's URI


def find_mentions(text: str, servers: Collection[str]) -> list[Mention]:
    """The mentions in `text`, in order, each once; `servers`: the configured MCP servers' names."""
    found: dict[str, Mention] = {}
    for match in MENTION.finditer(text):
        quoted, bare = match.groups()
        written = quoted if quoted is not None else bare.rstrip(TRAILING_PUNCTUATION)
        if not written:
            continue
        name, colon, rest = written.partition(":")
        if colon and rest and SERVER_NAME.fullmatch(name) and name in servers:
            found.setdefault(written, Mention(written, name, rest))
        else:
            found.setdefault(written, Mention(written, None, written))
    return list(found.values())


@dataclass(frozen=True)
class Gathered:
    attachments: tuple[Attachment, ...]
    refused: tuple[str, ...]  # one line per mention not attached, saying why


async def gather(text: str, ctx: ToolContext, parts: McpPromptParts) -> Gathered:
    """Every mention in `text` read and attached, or refused with its reason."""
    from levelcode.cli.repl.mcp_prompt_parts import PromptError

    servers = set(parts.mcp.known_servers())
    attachments: list[Attachment] = []
    refused: list[str] = []
    for mention in find_mentions(text, servers):
        if len(attachments) >= MAX_ATTACHMENTS:
            refused.append(
                f"@{mention.written}: not attached: at most {MAX_ATTACHMENTS} attachments a message"
            )
            continue
        try:
            if mention.server is not None:
                attachments.append(await parts.attach(mention.server, mention.target))
            else:
                attachments.append(await asyncio.to_thread(attach_path, ctx, mention.target))
        except (ToolError, PromptError) as exc:
            refused.append(f"@{mention.written}: not attached: {exc}")
    return Gathered(tuple(attachments), tuple(refused))


def attached_line(attachments: Iterable[Attachment]) -> str:
    """`attached: @src/app.py (1,204 chars) · @docs/ (listing) · !make test (output)`."""
    parts = []
    for item in attachments:
        if item.kind == "command_output":
            parts.append(f"!{item.source} (output)")
        elif item.kind == "folder":
            parts.append(f"@{item.source}/ (listing)")
        else:
            size = f"cut, {item.size:,} in all" if item.cut else f"{item.size:,} chars"
            parts.append(f"@{item.source} ({size})")
    return "attached: " + " · ".join(parts)


class MentionCompleter(Completer):
    """Completes `@path` from the files and folders inside the allowed directories."""

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        typed = TYPED_MENTION.search(document.text_before_cursor)
        if typed is None:
            return
        word = typed.group(1)
        partial = word[1:].removeprefix('"')
        for path in path_completions(self.ctx, partial):
            shown = f'@"{path}"' if " " in path else f"@{path}"
            yield Completion(shown, start_position=-len(word), display=path)

    async def get_completions_async(
        self, document: Document, complete_event: CompleteEvent
    ) -> AsyncGenerator[Completion, None]:
        for completion in self.get_completions(document, complete_event):
            yield completion
