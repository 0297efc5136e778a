"""What the model and the user are told when resources the conversation uses changed: the words,
built here from the MCP layer's typed records (core/resource_changes.py).

Pure. An attached resource's new copy goes with the next message, fenced as the server's data;
one the model read itself is only named (it may read it again).
"""

from __future__ import annotations

from collections.abc import Sequence

from levelcode.core.resource_changes import ResourceChanged, fenced_resource

HEADER = "[LevelCode: MCP resources this conversation uses changed since they were read]"


def with_resource_changes(prompt: str, changes: Sequence[ResourceChanged]) -> str:
    """The user's prompt, then the note for the model (and the attached resources' new copies)."""
    lines, sections = [HEADER], []
    for change in changes:
        where = f"{change.server}:{change.uri}"
        if change.contents is not None:
            lines.append(f"- {where} (attached): its current contents follow; they replace the earlier copy.")
            sections.append(fenced_resource(change.server, change.uri, change.contents))
        elif change.problem is not None:
            lines.append(f"- {where} (attached): reading it again failed ({change.problem[:300]}).")
        else:
            lines.append(f"- {where}: read it again before relying on what it said.")
    return "\n\n".join([prompt, "\n".join(lines), *sections])


def resource_changes_notice(changes: Sequence[ResourceChanged]) -> str:
    """One line for the user: which resources changed, and what the model gets."""
    named = ", ".join(f"@{c.server}:{c.uri}" for c in changes[:5])
    more = f" and {len(changes) - 5} more" if len(changes) > 5 else ""
    refreshed = (
        " (the new copy goes with your message)" if any(c.contents is not None for c in changes) else ""
    )
    return f"MCP resource changed: {named}{more}{refreshed}"
