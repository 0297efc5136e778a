"""A server's resource changed while the session uses it: plain data for the agent (which tells the
model on its next turn, with an attached resource's new copy as an attachment: core/attachments.py)
and for the surfaces.

Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

PURE = True


@dataclass(frozen=True)
class ResourceChanged:
    server: str
    uri: str
    contents: str | None = None  # read again because it is attached to the conversation (capped)
    problem: str | None = None  # why reading it again failed
