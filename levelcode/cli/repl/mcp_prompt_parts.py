"""What MCP servers add to the interactive prompt: `@server:uri` attaches a resource (found in
the message by cli/repl/mentions.py), and `/server:prompt ARG…` runs one of a server's prompts; both
with completion (server names, URIs, prompt names, and arguments through the server's
`completion/complete` where it offers one).

The user typed them, so no call card is shown; what comes back is the server's text, capped
and fenced as the server's before it joins the prompt. A server that is slow to answer a
completion costs at most `COMPLETION_SECONDS` and no suggestions.
"""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import AsyncGenerator, Iterable, Mapping
from typing import TYPE_CHECKING

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from levelcode.core.attachments import Attachment, resource_attachment
from levelcode.core.errors import McpError
from levelcode.mcp.live.connection import Listing, McpConnection
from levelcode.mcp.live.server_content import complete, get_prompt, read_resource, resource_index
from levelcode.mcp.protocol.content import prompt_arguments
from levelcode.mcp.protocol.results import cap_text

if TYPE_CHECKING:
    from levelcode.mcp.live.runtime import McpRuntime

MAX_ATTACHED_CHARS = 40_000
COMPLETION_SECONDS = 2.0


class PromptError(Exception):
    """A `/server:prompt` or `@server:uri` that cannot be used: the message says why."""


class McpPromptParts:
    def __init__(self, mcp: McpRuntime) -> None:
        self.mcp = mcp

    def resource_servers(self) -> list[McpConnection]:
        return [c for c in self.mcp.connections() if c.info.offer("resources")]

    def prompt_servers(self) -> list[McpConnection]:
        return [c for c in self.mcp.connections() if c.info.offer("prompts")]

    async def attach(self, server: str, uri: str) -> Attachment:
        """The resource `uri` of the running server `server`, as an attachment (its text capped).
        Raises PromptError saying why it cannot be attached."""
        connection = self.mcp.connection(server)
        if connection is None or not connection.info.offer("resources"):
            raise PromptError(f"no running MCP server {server!r} offers resources")
        outcome = await read_resource(connection, uri, attached=True)  # a changed copy is sent again
        if outcome.is_error:
            raise PromptError(outcome.text)
        size = len(outcome.text)
        body = cap_text(outcome.text, MAX_ATTACHED_CHARS)
        return resource_attachment(server, uri, body, size=size, cut=size > MAX_ATTACHED_CHARS)

    async def prompt_text(self, command: str, words: list[str]) -> str:
        """The text a `/server:prompt` turn sends. Raises PromptError."""
        server, _, name = command[1:].partition(":")
        connection = self.mcp.connection(server)
        if connection is None or not connection.info.offer("prompts"):
            raise PromptError(f"no running MCP server {server!r} offers prompts (/mcp lists the servers)")
        try:
            prompts = await connection.listing("prompts/list", "prompts")
        except McpError as exc:
            raise PromptError(f"{server}: listing prompts failed: {exc}") from exc
        found = next((p for p in prompts if p.get("name") == name), None)
        if found is None:
            names = ", ".join(f"/{server}:{p.get('name')}" for p in prompts) or "none"
            raise PromptError(f"{server} has no prompt {name!r}; it offers: {names}")
        arguments = bind_arguments(found, words)
        try:
            prompt = await get_prompt(connection, name, arguments)
        except McpError as exc:
            raise PromptError(f"{server}:{name} failed: {exc}") from exc
        intro = (
            f"(The user ran the prompt {name!r} of the MCP server {server!r}; "
            "its text follows, written by that server.)"
        )
        return f"{intro}\n\n{cap_text(prompt.joined(), MAX_ATTACHED_CHARS)}"


def bind_arguments(prompt: Mapping[str, object], words: list[str]) -> dict[str, str]:
    """`name=value` words by name, the others by position among those not named yet. Raises
    PromptError for an unknown name, too many words or a missing required argument."""
    declared = prompt_arguments(prompt)
    names = [name for name, _required, _text in declared]
    bound, positional = _split(words, names)
    free = [name for name in names if name not in bound]
    if len(positional) > len(free):
        raise PromptError(f"too many arguments; {prompt.get('name')} takes: {usage(prompt)}")
    bound.update(zip(free, positional, strict=False))
    lacking = [name for name, required, _text in declared if required and name not in bound]
    if lacking:
        raise PromptError(f"missing {', '.join(lacking)}; usage: {usage(prompt)}")
    return bound


def usage(prompt: Mapping[str, object]) -> str:
    parts = [name if required else f"[{name}]" for name, required, _text in prompt_arguments(prompt)]
    return " ".join(parts) or "(no arguments)"


def split_words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise PromptError(f"cannot read the arguments: {exc}") from exc


class McpCompleter(Completer):
    """Completes `@server:uri`, `/server:prompt` and the prompt's arguments, asking the servers."""

    def __init__(self, parts: McpPromptParts, commands: Iterable[str]) -> None:
        self.parts = parts
        self.commands = commands  # iterated anew at each completion: custom commands come and go

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        return []  # every completion needs a server's answer: see get_completions_async

    async def get_completions_async(
        self, document: Document, complete_event: CompleteEvent
    ) -> AsyncGenerator[Completion, None]:
        before = document.text_before_cursor
        word = before.split(" ")[-1] if before else ""
        try:
            async with asyncio.timeout(COMPLETION_SECONDS):
                found = await self._suggest(before, word)
        except (TimeoutError, McpError):
            return
        for text, start in found:
            yield Completion(text, start_position=start)

    async def _suggest(self, before: str, word: str) -> list[tuple[str, int]]:
        if word.startswith("@"):
            return await self._mentions(word)
        if before.startswith("/") and " " not in before:
            return await self._commands(before)
        if before.startswith("/") and ":" in before.split(" ", maxsplit=1)[0]:
            return await self._argument(before, word)
        return []

    async def _mentions(self, word: str) -> list[tuple[str, int]]:
        server, colon, partial = word[1:].partition(":")
        if not colon:
            names = [f"@{c.name}:" for c in self.parts.resource_servers() if c.name.startswith(server)]
            return [(name, -len(word)) for name in names]
        connection = self.parts.mcp.connection(server)
        if connection is None or not connection.info.offer("resources"):
            return []
        resources, templates = await resource_index(connection)
        uris = [str(r["uri"]) for r in resources if isinstance(r.get("uri"), str)]
        uris += [
            str(t["uriTemplate"]).split("{", 1)[0] for t in templates if isinstance(t.get("uriTemplate"), str)
        ]
        return [(uri, -len(partial)) for uri in dict.fromkeys(uris) if uri.startswith(partial)]

    async def _commands(self, typed: str) -> list[tuple[str, int]]:
        found = [c for c in sorted(self.commands) if c.startswith(typed)]
        for connection in self.parts.prompt_servers():
            for prompt in await connection.listing("prompts/list", "prompts"):
                command = f"/{connection.name}:{prompt.get('name')}"
                if command.startswith(typed):
                    found.append(command)
        return [(command, -len(typed)) for command in found]

    async def _argument(self, before: str, word: str) -> list[tuple[str, int]]:
        command, *done = before.split(" ")
        server, _, name = command[1:].partition(":")
        connection = self.parts.mcp.connection(server)
        if connection is None or not connection.info.offer("prompts"):
            return []
        prompt = _find(await connection.listing("prompts/list", "prompts"), name)
        if prompt is None:
            return []
        names = [n for n, _required, _text in prompt_arguments(prompt)]
        earlier = [w for w in done[:-1] if w]
        context = _named(earlier, names)
        argument, value, prefix = _which_argument(word, earlier, names, context)
        if argument is None:
            return []
        ref = {"type": "ref/prompt", "name": name}
        values = await complete(connection, ref, argument, value, context)
        return [(prefix + v, -len(word)) for v in values]


def _find(prompts: Listing, name: str) -> Mapping[str, object] | None:
    return next((p for p in prompts if p.get("name") == name), None)


def _split(words: list[str], names: list[str]) -> tuple[dict[str, str], list[str]]:
    """The `name=value` words of a declared name, by name; the other words, in order."""
    named: dict[str, str] = {}
    positional = []
    for word in words:
        key, sep, value = word.partition("=")
        if sep and key in names:
            named[key] = value
        else:
            positional.append(word)
    return named, positional


def _named(words: list[str], names: list[str]) -> dict[str, str]:
    """What the earlier words set, by name: `name=value`, or by position."""
    named, positional = _split(words, names)
    free = [n for n in names if n not in named]
    named.update(zip(free, positional, strict=False))
    return named


def _which_argument(
    word: str, earlier: list[str], names: list[str], context: Mapping[str, str]
) -> tuple[str | None, str, str]:
    """(argument being typed, its value so far, the `name=` prefix to keep)."""
    key, sep, value = word.partition("=")
    if sep and key in names:
        return key, value, f"{key}="
    free = [n for n in names if n not in context]
    return (free[0] if free else None), word, ""
