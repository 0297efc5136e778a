"""One live MCP server, whatever its transport: its negotiated session, its tools, resources and
prompts, and calls that always end in an outcome.

`McpConnection.call_tool` returns what the model gets: the rendered result, or an `ERROR: …`
outcome for a timeout, a JSON-RPC error, a malformed answer, or a server that died (with the
transport's last diagnostic lines: a stdio server's stderr, a remote one's HTTP exchanges).
Each call carries a progress token, and the server's progress for it goes to the caller; the
server's log messages go to its log (mcp/live/server_log.py). Capping and spilling long results is
the hub's job (it owns the results directory). Which transport a server gets, and how its
protocol era is found, is transports.py's choice: `connect` asks the `TransportPlanner` it is
given (`transport_plan` unless a caller hands it another) and never opens a transport otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import TYPE_CHECKING

from levelcode.core.errors import CallTimeout, McpError, ServerExited, ServerStartError
from levelcode.core.outcome import ToolOutcome, failure
from levelcode.core.progress import Progress, ProgressCallback, ReportedProgress
from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.config.timeouts_entry import effective_limits
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.call_notes import CallNotes, with_call_notes
from levelcode.mcp.live.listening import ServerListening
from levelcode.mcp.live.server_log import ServerLog
from levelcode.mcp.live.transports import TransportPlanner, transport_plan
from levelcode.mcp.protocol import jsonrpc
from levelcode.mcp.protocol.deadline import CallDeadline
from levelcode.mcp.protocol.handshake import Era, ServerInfo
from levelcode.mcp.protocol.input_rounds import call_after_browser_steps, request_until_complete
from levelcode.mcp.protocol.paging import list_all
from levelcode.mcp.protocol.result_cache import ResultCache
from levelcode.mcp.protocol.results import render_call_result
from levelcode.mcp.protocol.session import McpSession
from levelcode.mcp.protocol.task_calls import TaskCancelled, follow_task, status_as_progress
from levelcode.mcp.protocol.tasks import created_task, task_spelling
from levelcode.platform import paths

if TYPE_CHECKING:
    from levelcode.mcp.launch.server_box import SandboxChoice
    from levelcode.mcp.live.early_start import EarlyServer

DIAGNOSTIC_LINES_IN_ERRORS = 8
RESOURCE_LIST_SECONDS = 5.0
LOG_LEVEL_META = "io.modelcontextprotocol/logLevel"

ToolsChanged = Callable[["McpConnection"], None]
ResourceUpdated = Callable[["McpConnection", str], None]  # a resource in use changed: its URI
Listing = tuple[Mapping[str, object], ...]
_tokens = itertools.count(1)


class McpConnection:
    def __init__(
        self,
        spec: ServerSpec,
        session: McpSession,
        info: ServerInfo,
        options: ConnectOptions,
        notes: CallNotes | None = None,
    ) -> None:
        self.spec = spec
        self.name = spec.name
        self.session = session
        self.info = info
        self.call_timeout = spec.timeout or options.call_timeout
        self.tools: Listing = ()
        self.listings: dict[str, Listing] = {}  # resources, templates, prompts: fetched when first asked
        self.on_tools_changed: ToolsChanged | None = None
        self.on_resource_updated: ResourceUpdated | None = None
        self.notes = notes or CallNotes()  # what the server's requests during each call left to say
        log_path = options.log_dir / paths.server_log_name(spec.name) if options.log_dir else None
        self.log = ServerLog(log_path, spec.client.log_level)
        self._progress: dict[str, ProgressCallback] = {}
        self._deadlines: dict[str, CallDeadline] = {}  # per progress token: progress moves it
        self._background: set[asyncio.Task[object]] = set()
        self._tools_stale = False  # a tools list_changed came that no re-list has answered yet
        self._relisting = False
        session.on_notification = self._notification
        # What the requests carry decides who may share a "private" answer; a transport without
        # credentials of its own (stdio) has one identity.
        credentials = getattr(session.transport, "credentials_identity", None)
        session.cache = ResultCache(credentials if callable(credentials) else lambda: "")
        self.listening = ServerListening(session, info, self._spawn)

    @property
    def pid(self) -> int | None:
        """The server's local process, when it has one (a stdio server)."""
        return self.session.transport.process_id

    async def list_tools(self, *, timeout: float | None = None) -> Listing:
        self.tools = tuple(
            await list_all(self.session, "tools/list", "tools", timeout=timeout or self.call_timeout)
        )
        return self.tools

    async def listing(
        self, method: str, key: str, *, fresh: bool = False, timeout: float | None = None
    ) -> Listing:
        """`resources/list` → resources, `resources/templates/list` → resourceTemplates,
        `prompts/list` → prompts: every page, kept until the server says its list changed."""
        if fresh or method not in self.listings or self.cache.stale(method):
            items = await list_all(self.session, method, key, timeout=timeout or self.call_timeout)
            self.listings[method] = tuple(items)
        return self.listings[method]

    async def list_resources(self) -> None:
        """Fetch the resource and template lists (kept), both at once; a server that offers none,
        or is slow to say (`RESOURCE_LIST_SECONDS`), has none for now."""
        if not self.info.offer("resources"):
            return

        async def fetch(method: str, key: str) -> None:
            with contextlib.suppress(McpError):
                await self.listing(method, key, fresh=True, timeout=RESOURCE_LIST_SECONDS)

        await _together(
            fetch("resources/list", "resources"), fetch("resources/templates/list", "resourceTemplates")
        )

    @property
    def cache(self) -> ResultCache:
        assert self.session.cache is not None  # set when the connection was made
        return self.session.cache

    @property
    def tools_stale(self) -> bool:
        """The server gave its tools list a TTL, and it has run out (or the list changed)."""
        return self.cache.stale("tools/list")

    async def refresh_stale_tools(self, timeout: float) -> bool:
        """List the tools again if their TTL ran out; whether the list changed. A server that fails
        to answer keeps its last list (the spec allows a stale answer on an error)."""
        if not self.tools_stale:
            return False
        before = self.tools
        with contextlib.suppress(McpError, TimeoutError):
            async with asyncio.timeout(timeout):  # every page together, not each page
                await self.list_tools(timeout=timeout)
        return self.tools != before

    @property
    def has_resources(self) -> bool:
        """Whether it listed any resource or template (then the model gets the resource tools)."""
        return bool(self.listings.get("resources/list") or self.listings.get("resources/templates/list"))

    async def request(self, method: str, params: Mapping[str, object]) -> Mapping[str, object]:
        """One request that may need the user's input first (2026-07-28); raises McpError."""
        return await request_until_complete(self.session, method, params, timeout=self.call_timeout)

    async def call_tool(
        self,
        tool: str,
        arguments: Mapping[str, object],
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> ToolOutcome:
        """The rendered result; every failure becomes an `ERROR: …` outcome, never an exception.
        The call may go on as long as the server reports progress on it (each report moves its
        idle deadline), up to the cap of the server's `"timeouts"`."""
        idle, cap = effective_limits(self.spec.timeouts, timeout, self.call_timeout)
        deadline = CallDeadline(idle, cap)
        token = f"levelcode-{next(_tokens)}"
        params: dict[str, object] = {
            "name": tool,
            "arguments": dict(arguments),
            "_meta": {"progressToken": token},
        }
        self._deadlines[token] = deadline
        reported = ReportedProgress(on_progress) if on_progress is not None else None
        if reported is not None:
            self._progress[token] = reported.report
        with self.notes.collecting() as notes:
            try:
                outcome = await self._call_outcome(tool, params, deadline, reported)
            finally:
                self._progress.pop(token, None)
                self._deadlines.pop(token, None)
        return with_call_notes(outcome, notes)

    async def _call_outcome(
        self,
        tool: str,
        params: dict[str, object],
        deadline: CallDeadline,
        reported: ReportedProgress | None,
    ) -> ToolOutcome:
        definition = next((t for t in self.tools if t.get("name") == tool), None)
        spelling = task_spelling(self.info.era, self.info.task_calls, definition)
        if spelling == "legacy":  # 2025-11-25: the client asks for a task; the server keeps it that long
            params["task"] = {"ttl": int(deadline.cap * 1000)}
        try:
            result = await call_after_browser_steps(self.session, tool, params, deadline, server=self.name)
            task = created_task(result, spelling) if spelling is not None else None
            if task is not None and spelling is not None:
                status = status_as_progress(reported)
                result = await follow_task(
                    self.session, task, spelling=spelling, deadline=deadline, tool=tool, on_status=status
                )
            return render_call_result(result)
        except TaskCancelled as exc:
            return failure(f"{self.name}/{tool}: {exc}")
        except CallTimeout:
            reason = deadline.expired() or f"timed out after {deadline.idle:g} s"
            return failure(f"{self.name}/{tool} {reason}; LevelCode asked the server to cancel it")
        except ServerExited as exc:
            return failure(f"server {self.name!r} exited ({exc.detail}) during {tool}{self._diagnostics()}")
        except McpError as exc:
            return failure(f"{self.name}/{tool}: {exc}{self._diagnostics()}")

    def roots_changed(self) -> None:
        """Tell a server that asked for roots that the set changed (2026-07-28 asks each time)."""
        if self.info.era == "legacy" and self.spec.client.roots:
            with contextlib.suppress(McpError):
                self.session.notify("notifications/roots/list_changed")

    def set_log_level(self) -> None:
        """Ask for log messages at the user's level: 2026-07-28 in every request's `_meta`; before,
        with `logging/setLevel`, sent in the background (a server slow to answer it must not
        hold up its start)."""
        if not self.info.offer("logging"):
            return
        if self.info.era == "modern" and self.session.envelope is not None:
            self.session.envelope = {**self.session.envelope, LOG_LEVEL_META: self.log.level}
            return
        level = {"level": self.log.level}
        self._spawn(self.session.request("logging/setLevel", level, timeout=self.call_timeout))

    def _diagnostics(self) -> str:
        lines = self.session.diagnostics()[-DIAGNOSTIC_LINES_IN_ERRORS:]
        title = self.session.transport.diagnostics_title
        return (f"\n{title}:\n" + "\n".join(lines)) if lines else ""

    def _notification(self, message: jsonrpc.Notification) -> None:
        method, params = message.method, message.params
        if method == "notifications/tools/list_changed":
            self.cache.drop("tools/list")
            self._tools_changed()
        elif method == "notifications/resources/list_changed":
            self.cache.drop("resources/list")
            self.cache.drop("resources/templates/list")
            self._spawn(self._refresh_resources())
        elif method == "notifications/prompts/list_changed":
            self.cache.drop("prompts/list")
            self.listings.pop("prompts/list", None)
        elif method == "notifications/subscriptions/acknowledged":
            self.listening.acknowledged(params)
        elif method == "notifications/resources/updated":
            uri = params.get("uri")
            if isinstance(uri, str):
                self.cache.drop("resources/read", uri)
            update = self.listening.updated(params)
            if update is not None and self.on_resource_updated is not None:
                self.on_resource_updated(self, update.uri)
        elif method == "notifications/progress":
            self._progressed(params)
        elif method == "notifications/message":
            self.log.record(params)

    def _progressed(self, params: Mapping[str, object]) -> None:
        token = str(params.get("progressToken"))
        deadline = self._deadlines.get(token)
        if deadline is not None:
            deadline.touch()
        callback = self._progress.get(token)
        value = params.get("progress")
        if callback is None or not isinstance(value, int | float) or isinstance(value, bool):
            return
        total = params.get("total")
        message = params.get("message")
        callback(
            Progress(
                float(value),
                float(total) if isinstance(total, int | float) and not isinstance(total, bool) else None,
                message[:200] if isinstance(message, str) else None,
            )
        )

    async def _refresh_resources(self) -> None:
        had = self.has_resources
        await self.list_resources()
        if had != self.has_resources and self.on_tools_changed is not None:
            self.on_tools_changed(self)  # the resource tools come or go

    def _tools_changed(self) -> None:
        """A burst of list_changed (server-everything sends four as it starts) is one re-list, and
        one more for those that came while it was on its way: never one whole list each."""
        self._tools_stale = True
        if not self._relisting:
            self._relisting = True
            self._spawn(self._refresh())

    async def _refresh(self) -> None:
        try:
            while self._tools_stale:
                self._tools_stale = False
                with contextlib.suppress(McpError):
                    await self.list_tools()
                    if self.on_tools_changed is not None:
                        self.on_tools_changed(self)
        finally:
            self._relisting = False

    def start_listening(self) -> None:
        self.listening.start()

    def _spawn(self, work: Coroutine[object, object, object]) -> asyncio.Task[object]:
        task: asyncio.Task[object] = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[object]) -> None:
        self._background.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved, so asyncio does not log it; failures here are not fatal

    async def close(self) -> None:
        for task in list(self._background):
            task.cancel()
        await self.session.close()
        self.log.close()


async def connect(
    spec: ServerSpec,
    options: ConnectOptions,
    *,
    hint: Era | None = None,
    parent_env: Mapping[str, str] | None = None,
    opened: Callable[[], None] | None = None,
    begun: EarlyServer | None = None,
    sandbox: SandboxChoice | None = None,
    transports: TransportPlanner = transport_plan,
) -> McpConnection:
    """Start (or reach) the server, negotiate, list its tools — all within its startup timeout.
    `opened` is called once the server's process (or connection) exists, its first request about
    to be sent: what a caller waits for before it does work that keeps the loop busy. `begun`: the
    early start's launch of this server, and its process, taken over instead of a new one; `sandbox`:
    how the launch gate let a repository's server start, when in the sandbox; `transports`: where
    the server's transports come from."""
    plan = transports(spec, options, os.environ if parent_env is None else parent_env, begun, sandbox)
    startup = spec.startup_timeout or options.startup_timeout
    notes = CallNotes()
    features = options.features_for(spec, notes.add) if options.features_for is not None else options.features

    async def open_session() -> McpSession:
        session = McpSession(plan.make(), features=features)
        await session.open()
        if opened is not None:
            opened()
        return session

    sessions: list[McpSession] = []
    try:
        async with asyncio.timeout(startup):
            session, info = await plan.negotiate(open_session, hint)
            sessions.append(session)
            connection = McpConnection(spec, session, info, options, notes)
            await _together(connection.list_tools(timeout=startup), connection.list_resources())
    except TimeoutError:
        await _close_all(sessions)
        raise ServerStartError(f"did not finish starting within {startup:g} s", server=spec.name) from None
    except ServerExited as exc:
        await _close_all(sessions)
        why = "; stderr: " + " | ".join(exc.stderr_lines) if exc.stderr_lines else ""
        raise ServerStartError(f"exited while starting ({exc.detail}){why}", server=spec.name) from exc
    except BaseException:
        await _close_all(sessions)
        raise
    connection.set_log_level()
    connection.start_listening()
    return connection


async def _together(*steps: Awaitable[object]) -> None:
    """Await the steps at once (each request waits on the server, not on the one before it);
    when one fails, the others still finish, and the first failure is raised."""
    for outcome in await asyncio.gather(*steps, return_exceptions=True):
        if isinstance(outcome, BaseException):
            raise outcome


async def _close_all(sessions: list[McpSession]) -> None:
    await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)
