"""One live MCP server, whatever its transport: its negotiated session, its tools, and calls that
always end in an outcome.

`McpConnection.call_tool` returns what the model gets: the rendered result, or an `ERROR: …`
outcome for a timeout, a JSON-RPC error, a malformed answer, or a server that died (with the
transport's last diagnostic lines: a stdio server's stderr, a remote one's HTTP exchanges).
Capping and spilling long results is the hub's job (it owns the results directory). Which
transport a server gets, and how its protocol era is found, is transports.py's choice.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Coroutine, Mapping

from levelcode.core.errors import CallTimeout, McpError, ProtocolError, ServerExited, ServerStartError
from levelcode.core.outcome import ToolOutcome, failure
from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.connect_options import ConnectOptions
from levelcode.mcp.protocol import jsonrpc
from levelcode.mcp.protocol.handshake import Era, ServerInfo
from levelcode.mcp.protocol.results import render_call_result
from levelcode.mcp.protocol.session import McpSession
from levelcode.mcp.transports import transport_plan

MAX_LIST_PAGES = 100
MAX_INPUT_ROUNDS = 10
MAX_INPUT_REQUESTS = 20
DIAGNOSTIC_LINES_IN_ERRORS = 8


ToolsChanged = Callable[["McpConnection"], None]


class McpConnection:
    def __init__(
        self, spec: ServerSpec, session: McpSession, info: ServerInfo, options: ConnectOptions
    ) -> None:
        self.spec = spec
        self.name = spec.name
        self.session = session
        self.info = info
        self.call_timeout = spec.timeout or options.call_timeout
        self.tools: tuple[Mapping[str, object], ...] = ()
        self.on_tools_changed: ToolsChanged | None = None
        self._background: set[asyncio.Task[object]] = set()
        session.on_notification = self._notification

    @property
    def pid(self) -> int | None:
        """The server's local process, when it has one (a stdio server)."""
        return self.session.transport.process_id

    async def list_tools(self, *, timeout: float | None = None) -> tuple[Mapping[str, object], ...]:
        tools: list[Mapping[str, object]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _page in range(MAX_LIST_PAGES):
            params = {"cursor": cursor} if cursor else {}
            result = await self.session.request("tools/list", params, timeout=timeout or self.call_timeout)
            page = result.get("tools")
            if not isinstance(page, list):
                raise ProtocolError("tools/list answered without a list of tools", server=self.name)
            tools.extend(item for item in page if isinstance(item, Mapping))
            next_cursor = result.get("nextCursor")
            if not isinstance(next_cursor, str) or not next_cursor:
                self.tools = tuple(tools)
                return self.tools
            if next_cursor in seen:
                raise ProtocolError("tools/list repeated a page cursor", server=self.name)
            seen.add(cursor := next_cursor)
        raise ProtocolError(f"tools/list went on for more than {MAX_LIST_PAGES} pages", server=self.name)

    async def call_tool(
        self, tool: str, arguments: Mapping[str, object], *, timeout: float | None = None
    ) -> ToolOutcome:
        """The rendered result; every failure becomes an `ERROR: …` outcome, never an exception."""
        limit = timeout or self.call_timeout
        try:
            return await self._call(tool, arguments, limit)
        except CallTimeout:
            return failure(
                f"{self.name}/{tool} timed out after {limit:g} s; LevelCode asked the server to cancel it"
            )
        except ServerExited as exc:
            return failure(f"server {self.name!r} exited ({exc.detail}) during {tool}{self._diagnostics()}")
        except McpError as exc:
            return failure(f"{self.name}/{tool}: {exc}{self._diagnostics()}")

    async def _call(self, tool: str, arguments: Mapping[str, object], timeout: float) -> ToolOutcome:
        params: dict[str, object] = {"name": tool, "arguments": dict(arguments)}
        for round_ in range(MAX_INPUT_ROUNDS):
            result = await self.session.request("tools/call", params, timeout=timeout, tool=tool)
            kind = result.get("resultType", "complete")
            if kind == "complete":
                return render_call_result(result)
            if kind != "input_required":
                raise ProtocolError(f"unknown resultType {kind!r}", server=self.name, tool=tool)
            if result.get("inputRequests"):
                params = {**params, "inputResponses": await self._fulfil(result["inputRequests"], tool)}
            else:
                params.pop("inputResponses", None)
                await asyncio.sleep(min(0.05 * 2**round_, 0.25))
            params.pop("requestState", None)
            if isinstance(result.get("requestState"), str):
                params["requestState"] = result["requestState"]
        raise ProtocolError(
            f"still asking to retry after {MAX_INPUT_ROUNDS} rounds", server=self.name, tool=tool
        )

    async def _fulfil(self, requests: object, tool: str) -> dict[str, object]:
        """2026-07-28 input requests, answered one by one as if the server had asked them itself."""
        if not isinstance(requests, Mapping) or len(requests) > MAX_INPUT_REQUESTS:
            raise ProtocolError("malformed inputRequests", server=self.name, tool=tool)
        answers: dict[str, object] = {}
        for key, request in requests.items():
            method = request.get("method") if isinstance(request, Mapping) else None
            params = request.get("params", {}) if isinstance(request, Mapping) else None
            if not isinstance(method, str) or not isinstance(params, Mapping):
                raise ProtocolError(f"malformed input request {str(key)[:60]!r}", server=self.name, tool=tool)
            if not self.session.handles(method):
                raise ProtocolError(
                    f"asked for {method[:60]!r} (input from the user), which this session cannot answer",
                    server=self.name,
                    tool=tool,
                )
            answers[str(key)] = await self.session.handle_server_request(method, params)
        return answers

    def _diagnostics(self) -> str:
        lines = self.session.diagnostics()[-DIAGNOSTIC_LINES_IN_ERRORS:]
        title = self.session.transport.diagnostics_title
        return (f"\n{title}:\n" + "\n".join(lines)) if lines else ""

    def _notification(self, message: jsonrpc.Notification) -> None:
        if message.method == "notifications/tools/list_changed":
            self._spawn(self._refresh())

    async def _refresh(self) -> None:
        with contextlib.suppress(McpError):
            await self.list_tools()
            if self.on_tools_changed is not None:
                self.on_tools_changed(self)

    def start_listening(self) -> None:
        """2026-07-28 delivers list_changed only on a `subscriptions/listen` stream; open one."""
        if self.info.era == "modern" and self.info.tools_list_changed:
            params = {"notifications": {"toolsListChanged": True}}
            self._spawn(self.session.request("subscriptions/listen", params, timeout=None))

    def _spawn(self, work: Coroutine[object, object, object]) -> None:
        task: asyncio.Task[object] = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[object]) -> None:
        self._background.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved, so asyncio does not log it; failures here are not fatal

    async def close(self) -> None:
        for task in list(self._background):
            task.cancel()
        await self.session.close()


async def connect(
    spec: ServerSpec,
    options: ConnectOptions,
    *,
    hint: Era | None = None,
    parent_env: Mapping[str, str] | None = None,
    opened: Callable[[], None] | None = None,
) -> McpConnection:
    """Start (or reach) the server, negotiate, list its tools — all within its startup timeout.
    `opened` is called once the server's process (or connection) exists, its first request about
    to be sent: what a caller waits for before it does work that keeps the loop busy."""
    plan = transport_plan(spec, options, os.environ if parent_env is None else parent_env)
    startup = spec.startup_timeout or options.startup_timeout

    async def open_session() -> McpSession:
        session = McpSession(plan.make(), features=options.features)
        await session.open()
        if opened is not None:
            opened()
        return session

    sessions: list[McpSession] = []
    try:
        async with asyncio.timeout(startup):
            session, info = await plan.negotiate(open_session, hint)
            sessions.append(session)
            connection = McpConnection(spec, session, info, options)
            await connection.list_tools(timeout=startup)
    except TimeoutError:
        await _close_all(sessions)
        raise ServerStartError(f"did not finish starting within {startup:g} s", server=spec.name) from None
    except ServerExited as exc:
        await _close_all(sessions)
        tail = "; last stderr: " + " | ".join(exc.stderr_tail[-3:]) if exc.stderr_tail else ""
        raise ServerStartError(f"exited while starting ({exc.detail}){tail}", server=spec.name) from exc
    except BaseException:
        await _close_all(sessions)
        raise
    connection.start_listening()
    return connection


async def _close_all(sessions: list[McpSession]) -> None:
    await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)
