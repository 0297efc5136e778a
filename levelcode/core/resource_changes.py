"""A server's resource changed while the session uses it: plain data for the agent (which tells the
model on its next turn) and for the surfaces; and the one way a resource's text is fenced when it
joins a message (an `@server:uri` attachment, or its refreshed copy).

Pure. The text is the server's: fenced and marked as data, never as instructions.
"""

from __future__ import annotations

from dataclasses import dataclass

RESOURCE_TAG = "mcp-resource"


@dataclass(frozen=True)
class ResourceChanged:
    server: str
    uri: str
    contents: str | None = None  # read again because it is attached to the conversation (capped)
    problem: str | None = None  # why reading it again failed


def fenced(tag: str, attributes: str, body: str) -> str:
    """`body` between `<tag …>` and `</tag>`, a closing tag inside it defused."""
    return f"<{tag} {attributes}>\n{body.replace(f'</{tag}', f'</ {tag}')}\n</{tag}>"


def fenced_resource(server: str, uri: str, body: str) -> str:
    return fenced(RESOURCE_TAG, f"server={server!r} uri={uri!r}", body)
