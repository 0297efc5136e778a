"""What a server tells LevelCode on its own: list changes, and updates of the resources this
session uses (read by the model, or attached to a message).

2026-07-28: one `subscriptions/listen` stream whose filter names what we want — the lists the
server says can change and, where it offers `resources.subscribe`, every resource in use; when a
resource comes into use the stream is closed and opened again with the larger filter (the filter
is fixed when a stream opens). 2025-11-25 and before: `resources/subscribe` once per resource, the
updates arriving on the server's own channel. Updates are kept as typed records until the
session takes them (the model is told on its next turn); a few recent ones stay for `/mcp`.
Never waits for the server: every request here runs in the background.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass

from levelcode.mcp.protocol.handshake import ServerInfo
from levelcode.mcp.protocol.session import McpSession

MAX_WATCHED = 100
RECENT_UPDATES = 5
SUBSCRIBE_SECONDS = 10.0
Spawn = Callable[[Coroutine[object, object, object]], "asyncio.Task[object]"]


@dataclass(frozen=True)
class ResourceUpdate:
    uri: str
    attached: bool  # in the conversation as an attachment (read again and shown to the model)
    at: float  # wall clock, for /mcp


class ServerListening:
    def __init__(self, session: McpSession, info: ServerInfo, spawn: Spawn) -> None:
        self.session, self.info, self.spawn = session, info, spawn
        self.watched: dict[str, bool] = {}  # uri → attached
        self.pending: dict[str, ResourceUpdate] = {}  # not yet taken by the session
        self.recent: deque[ResourceUpdate] = deque(maxlen=RECENT_UPDATES)
        self._stream: asyncio.Task[object] | None = None  # the open listen request
        self._replaced: asyncio.Task[object] | None = (
            None  # the one before, until the new one is acknowledged
        )

    @property
    def subscribable(self) -> bool:
        return self.info.offer("resources") and self.info.resources_subscribe

    def start(self) -> None:
        """2026-07-28 delivers list changes and updates only on a listen stream: open one."""
        if self.info.era != "modern":
            return
        wanted: dict[str, object] = {}
        for key, declared in (
            ("toolsListChanged", self.info.tools_list_changed),
            ("resourcesListChanged", self.info.resources_list_changed),
            ("promptsListChanged", self.info.prompts_list_changed),
        ):
            if declared:
                wanted[key] = True
        if self.watched and self.subscribable:
            wanted["resourceSubscriptions"] = list(self.watched)
        if not wanted:
            return
        # The stream it replaces stays open until the server acknowledges the new one, so an
        # update in between is not lost (the same update twice is reported once).
        self._close(self._replaced)
        self._replaced = self._stream
        self._stream = self.spawn(
            self.session.request("subscriptions/listen", {"notifications": wanted}, timeout=None)
        )

    def acknowledged(self) -> None:
        """The server acknowledged a listen stream: the one the newest replaced can go."""
        self._close(self._replaced)
        self._replaced = None

    def watch(self, uri: str, *, attached: bool) -> None:
        """The session uses `uri` now: ask to hear when it changes (once per resource)."""
        known = uri in self.watched
        if known and (self.watched[uri] or not attached):
            return
        if not known and len(self.watched) >= MAX_WATCHED:
            return
        self.watched[uri] = attached or self.watched.get(uri, False)
        if known or not self.subscribable:
            return
        if self.info.era == "modern":
            self.start()
        else:
            self.spawn(self.session.request("resources/subscribe", {"uri": uri}, timeout=SUBSCRIBE_SECONDS))

    def updated(self, params: Mapping[str, object]) -> ResourceUpdate | None:
        """A `notifications/resources/updated`: recorded when it is about a resource in use."""
        uri = params.get("uri")
        if not isinstance(uri, str) or uri not in self.watched:
            return None
        update = ResourceUpdate(uri, self.watched[uri], time.time())
        self.pending[uri] = update
        self.recent.append(update)
        return update

    def take(self) -> tuple[ResourceUpdate, ...]:
        taken, self.pending = tuple(self.pending.values()), {}
        return taken

    @staticmethod
    def _close(stream: asyncio.Task[object] | None) -> None:
        if stream is not None:
            stream.cancel()  # the session tells the server (cancelled, or the stream closed)
