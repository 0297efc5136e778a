"""What a server tells LevelCode on its own: list changes, and updates of the resources this
session uses (read by the model, or attached to a message).

2026-07-28: a `subscriptions/listen` stream whose filter names what we want — the lists the
server says can change and, where it offers `resources.subscribe`, every resource in use; when a
resource comes into use a new stream is opened with the larger filter (the filter is fixed when
a stream opens). 2025-11-25 and before: `resources/subscribe` once per resource, the updates
arriving on the server's own channel. A server keeps nothing for a client not yet subscribed, so
a resource is read only once the server confirmed it is watching it (the stream's
acknowledgement, or the answer to `resources/subscribe`), and a confirmed stream stays open until
the one replacing it is confirmed too: no change after a read goes unheard. Updates are kept as
typed records until the session takes them (the model is told on its next turn); a few recent
ones stay for `/mcp`. Never waits for the server longer than CONFIRM_SECONDS.
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
CONFIRM_SECONDS = 5.0  # how long a read of a new resource waits for the server to confirm it listens
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"  # in `_meta`: the listen request's id
Spawn = Callable[[Coroutine[object, object, object]], "asyncio.Task[object]"]


@dataclass(frozen=True)
class ResourceUpdate:
    uri: str
    attached: bool  # in the conversation as an attachment (read again and shown to the model)
    at: float  # wall clock, for /mcp


@dataclass(eq=False)
class _Stream:
    """One `subscriptions/listen` request; the server tags what it sends on it with its id."""

    request_id: int
    uris: frozenset[str]
    task: asyncio.Task[object]
    acknowledged: bool = False


class ServerListening:
    def __init__(self, session: McpSession, info: ServerInfo, spawn: Spawn) -> None:
        self.session, self.info, self.spawn = session, info, spawn
        self.watched: dict[str, bool] = {}  # uri → attached
        self.pending: dict[str, ResourceUpdate] = {}  # not yet taken by the session
        self.recent: deque[ResourceUpdate] = deque(maxlen=RECENT_UPDATES)
        self._streams: list[_Stream] = []  # open, oldest first: the newest, and the newest confirmed
        self._subscribing: dict[str, asyncio.Task[object]] = {}  # 2025-11-25: not answered yet
        self._moved = asyncio.Event()  # set, and replaced, whenever a confirmation comes or a stream ends
        self._patient = True  # until a server let a confirmation time out: then reads stop waiting

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
        request_id = self.session.new_request_id()
        listen = self.session.request(
            "subscriptions/listen", {"notifications": wanted}, timeout=None, request_id=request_id
        )
        uris = frozenset(self.watched) if "resourceSubscriptions" in wanted else frozenset[str]()
        stream = _Stream(request_id, uris, self.spawn(listen))
        stream.task.add_done_callback(lambda _task: self._ended(stream))
        self._streams.append(stream)
        self._prune()

    def acknowledged(self, params: Mapping[str, object]) -> None:
        """The server confirmed a listen stream, named by its id (without one, the oldest waiting):
        from now on it delivers what that stream asked for."""
        meta = params.get("_meta")
        named = meta.get(SUBSCRIPTION_ID) if isinstance(meta, Mapping) else None
        waiting = (s for s in self._streams if not s.acknowledged)
        stream = next((s for s in waiting if named is None or str(s.request_id) == str(named)), None)
        if stream is None:
            return  # a stream closed here already: one that replaced it is on its way
        stream.acknowledged = True
        self._prune()

    async def watch(self, uri: str, *, attached: bool) -> bool:
        """The session is about to read `uri` and use it: ask to hear when it changes, and return
        once the server confirmed it listens (at most CONFIRM_SECONDS), so that no change after
        the read goes unheard. Whether `uri` is new here (`forget` it if the read fails)."""
        known = uri in self.watched
        if not known and len(self.watched) >= MAX_WATCHED:
            return False
        self.watched[uri] = attached or self.watched.get(uri, False)
        if not self.subscribable:
            return not known
        if not known and self.info.era == "modern":
            self.start()
        elif not known:
            subscribe = self.session.request("resources/subscribe", {"uri": uri}, timeout=SUBSCRIBE_SECONDS)
            task = self._subscribing[uri] = self.spawn(subscribe)
            task.add_done_callback(lambda _task: self._answered(uri))
        await self._confirmed(uri)
        return not known

    def forget(self, uri: str) -> None:
        """`watch` took `uri` in but the read failed: the session does not use it after all (a
        stream may still name it until the next one; what it says of `uri` is not reported)."""
        self.watched.pop(uri, None)

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

    async def _confirmed(self, uri: str) -> None:
        if not self._patient:
            return
        try:
            async with asyncio.timeout(CONFIRM_SECONDS):
                while self._unconfirmed(uri):
                    await self._moved.wait()
        except TimeoutError:
            self._patient = False  # this server is slow to confirm: later reads do not wait for it

    def _unconfirmed(self, uri: str) -> bool:
        """A request to hear of `uri` is on its way, and nothing the server confirmed covers it."""
        if self.info.era != "modern":
            return uri in self._subscribing
        if any(s.acknowledged and uri in s.uris for s in self._streams):
            return False
        return any(uri in s.uris for s in self._streams)

    def _prune(self) -> None:
        """Keep the newest stream, and the newest the server confirmed (it names all that any
        older one does: the filter only grows); close the rest."""
        newest = self._streams[-1] if self._streams else None
        confirmed = next((s for s in reversed(self._streams) if s.acknowledged), None)
        for stream in self._streams:
            if stream is not newest and stream is not confirmed:
                stream.task.cancel()  # the session tells the server (cancelled, or the stream closed)
        self._streams = [s for s in self._streams if s is newest or s is confirmed]
        self._moved_on()

    def _ended(self, stream: _Stream) -> None:
        """A stream ended — closed here, by the server, or refused: it delivers nothing more."""
        if stream in self._streams:
            self._streams.remove(stream)
        self._moved_on()

    def _answered(self, uri: str) -> None:
        self._subscribing.pop(uri, None)
        self._moved_on()

    def _moved_on(self) -> None:
        moved, self._moved = self._moved, asyncio.Event()
        moved.set()
