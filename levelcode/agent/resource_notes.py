"""What the model and the user are told when resources the conversation uses changed: the words,
built here from the MCP layer's typed records (core/resource_changes.py).

Pure. An attached resource's new copy goes with the next message as an attachment of its own
(core/attachments.py: fenced as the server's data); one the model read itself is only named (it
may read it again).
"""

from __future__ import annotations

from collections.abc import Sequence

from levelcode.core.attachments import Attachment, resource_attachment
from levelcode.core.resource_changes import ResourceChanged

PURE = True

HEADER = "[LevelCode: MCP resources this conversation uses changed since they were read]"


def with_resource_changes(prompt: str, changes: Sequence[ResourceChanged]) -> str:
    """The user's prompt, then the note for the model (the attached resources' new copies go with
    it: `refreshed_copies`)."""
    lines = [HEADER]
    for change in changes:
        where = f"{change.server}:{change.uri}"
        if change.contents is not None:
            lines.append(f"- {where} (attached): its current contents follow; they replace the earlier copy.")
        elif change.problem is not None:
            lines.append(f"- {where} (attached): reading it again failed ({change.problem[:300]}).")
        else:
            lines.append(f"- {where}: read it again before relying on what it said.")
    return "\n\n".join([prompt, "\n".join(lines)])


def refreshed_copies(changes: Sequence[ResourceChanged]) -> tuple[Attachment, ...]:
    """The new copies of the attached resources that changed, as attachments of the next message."""
    return tuple(
        resource_attachment(change.server, change.uri, change.contents, size=len(change.contents))
        for change in changes
        if change.contents is not None
    )


def resource_changed_line(server: str, uri: str) -> str:
    """For the user, as the update arrives: which resource changed, and when the model hears."""
    return f"MCP resource changed: @{server}:{uri} (the model is told with your next message)"


def resource_changes_notice(changes: Sequence[ResourceChanged]) -> str:
    """One line for the user: which resources changed, and what the model gets."""
    named = ", ".join(f"@{c.server}:{c.uri}" for c in changes[:5])
    more = f" and {len(changes) - 5} more" if len(changes) > 5 else ""
    refreshed = (
        " (the new copy goes with your message)" if any(c.contents is not None for c in changes) else ""
    )
    return f"MCP resource changed: {named}{more}{refreshed}"
