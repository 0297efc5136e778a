"""A running server's resources, prompts and completions: for the model's resource tools, the
REPL's `@server:uri` and `/server:prompt`, and `levelcode mcp resources | read | prompts | prompt`.

Reading never raises for what a server does, except where the caller must tell "failed" from
"empty" (`resource_index`, `get_prompt`: McpError). What comes back is the server's text:
capped here, made safe for a terminal where it is printed.
"""

from __future__ import annotations

from collections.abc import Mapping

from levelcode.core.errors import McpError, RemoteError
from levelcode.core.outcome import ToolOutcome, failure
from levelcode.mcp.live.connection import Listing, McpConnection
from levelcode.mcp.protocol.content import PromptText, render_prompt, render_resource_contents, resource_lines
from levelcode.mcp.protocol.jsonrpc import METHOD_NOT_FOUND

MAX_COMPLETIONS = 100
MAX_URI_CHARS = 2_000


async def resource_index(connection: McpConnection) -> tuple[Listing, Listing]:
    """(resources, templates); a server that offers no templates has none. Raises McpError."""
    if not connection.info.offer("resources"):
        return (), ()
    resources = await connection.listing("resources/list", "resources")
    try:
        templates = await connection.listing("resources/templates/list", "resourceTemplates")
    except RemoteError as exc:
        if exc.code != METHOD_NOT_FOUND:
            raise
        templates = ()
    return resources, templates


async def list_resources_outcome(connection: McpConnection) -> ToolOutcome:
    """What the model's `list_resources` gets."""
    try:
        resources, templates = await resource_index(connection)
    except McpError as exc:
        return failure(f"{connection.name}: listing resources failed: {exc}")
    lines = resource_lines(resources, templates)
    if not lines:
        return ToolOutcome(f"MCP server {connection.name!r} lists no resources.")
    return ToolOutcome("\n".join(lines))


async def read_resource(connection: McpConnection, uri: object, *, attached: bool = False) -> ToolOutcome:
    """The resource's contents; from now on the session hears when it changes (`attached`: it
    joins the conversation, and a changed copy is sent to the model again)."""
    if not isinstance(uri, str) or not uri or len(uri) > MAX_URI_CHARS:
        return failure("read_resource needs `uri`: the resource's URI, as a string")
    if not connection.info.offer("resources"):
        return failure(f"MCP server {connection.name!r} offers no resources")
    # Listen first: a change the server makes after the read reaches a subscriber, or no one.
    added = await connection.listening.watch(uri, attached=attached)
    try:
        result = await connection.request("resources/read", {"uri": uri})
    except McpError as exc:
        if added:
            connection.listening.forget(uri)
        return failure(f"{connection.name}: reading {uri[:200]} failed: {exc}")
    return render_resource_contents(result)


async def get_prompt(connection: McpConnection, name: str, arguments: Mapping[str, str]) -> PromptText:
    """The prompt's messages as text. Raises McpError (no such prompt, a missing argument …)."""
    result = await connection.request("prompts/get", {"name": name, "arguments": dict(arguments)})
    return render_prompt(result)


async def complete(
    connection: McpConnection,
    ref: Mapping[str, object],
    argument: str,
    value: str,
    context: Mapping[str, str] | None = None,
) -> list[str]:
    """The server's suggestions for one argument (`completion/complete`); none when it offers none."""
    if not connection.info.offer("completions"):
        return []
    params: dict[str, object] = {"ref": dict(ref), "argument": {"name": argument, "value": value}}
    if context:
        params["context"] = {"arguments": dict(context)}
    try:
        result = await connection.session.request("completion/complete", params, timeout=5.0)
    except McpError:
        return []
    found = result.get("completion")
    values = found.get("values") if isinstance(found, Mapping) else None
    if not isinstance(values, list):
        return []
    return [v for v in values if isinstance(v, str)][:MAX_COMPLETIONS]
