"""One live MCP server: its negotiated session, its tools, and calls that always end in a string.

`McpConnection.call_tool` returns what the model gets: the rendered result, or `ERROR: …` for a
timeout, a JSON-RPC error, a malformed answer, or a server that died (with its last stderr lines).
Capping and spilling long results is the hub's job (it owns the results directory).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from pathlib import Path

from levelcode.core import paths
from levelcode.core.errors import CallTimeout, McpError, ProtocolError, ServerExited, ServerStartError
from levelcode.mcp.config.environment import (
    NOTHING_WITHHELD,
    Withheld,
    provider_keys_withheld,
    server_environment,
)
from levelcode.mcp.config.specs import ServerSpec, StdioServerSpec
from levelcode.mcp.gates.launch_plan import launch_argv, launch_cwd, uses_private_dir
from levelcode.mcp.protocol import jsonrpc
from levelcode.mcp.protocol.handshake import (
    DEFAULT_HINTED_PROBE_SECONDS,
    DEFAULT_PROBE_GRACE_SECONDS,
    Era,
    ServerInfo,
    finish_background_closes,
    negotiate,
    negotiate_in_turn,
)
from levelcode.mcp.protocol.results import Rendered, render_call_result
from levelcode.mcp.protocol.session import ClientFeatures, McpSession
from levelcode.mcp.protocol.transport import AuthHook, Transport
from levelcode.mcp.stdio.framing import DEFAULT_MAX_MESSAGE_BYTES
from levelcode.mcp.stdio.transport import StdioLaunch, StdioTransport

DEFAULT_STARTUP_TIMEOUT = 30.0
DEFAULT_CALL_TIMEOUT = 120.0
MAX_LIST_PAGES = 100
MAX_INPUT_ROUNDS = 10
MAX_INPUT_REQUESTS = 20
STDERR_LINES_IN_ERRORS = 8


@dataclass(frozen=True)
class ConnectOptions:
    workspace: Path
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    call_timeout: float = DEFAULT_CALL_TIMEOUT
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    probe_grace: float = DEFAULT_PROBE_GRACE_SECONDS
    hinted_probe: float = DEFAULT_HINTED_PROBE_SECONDS
    log_dir: Path | None = None
    servers_dir: Path | None = None  # where user-tier servers' private directories go (state dir)
    provider_key_values: frozenset[str] = frozenset()  # e.g. the settings' apiKey: never to a repo
    features: ClientFeatures | None = None  # what servers may ask of us, and who answers
    authorize: AuthHook | None = None  # a remote server's 401/403 goes here (may ask the user)


def resolve_launch(
    spec: StdioServerSpec, options: ConnectOptions, parent_env: Mapping[str, str]
) -> StdioLaunch:
    """What exactly to run: expands `${VAR}` in env (ServerStartError naming a missing one) and
    `${workspaceFolder}` in args and cwd; nothing else in args is expanded."""
    withheld = withheld_from(spec, options, parent_env)
    env = server_environment(spec.env, parent_env, server=spec.name, withheld=withheld)
    private = paths.server_dir(spec.name, options.servers_dir)
    cwd = launch_cwd(spec, options.workspace, private)
    log = options.log_dir / paths.server_log_name(spec.name) if options.log_dir else None
    argv = launch_argv(spec, options.workspace)
    return StdioLaunch(spec.name, argv, env, str(cwd), options.max_message_bytes, log)


def withheld_from(spec: ServerSpec, options: ConnectOptions, parent_env: Mapping[str, str]) -> Withheld:
    """A repository's server never receives LevelCode's provider keys, by `${VAR}` in env or headers."""
    if spec.provenance.tier != "workspace":
        return NOTHING_WITHHELD
    return provider_keys_withheld(parent_env, options.provider_key_values)


def prepare_private_dir(spec: StdioServerSpec, launch: StdioLaunch) -> None:
    """Create a user-tier server's own directory (0700) before it starts there."""
    if not uses_private_dir(spec):
        return
    directory = Path(launch.cwd)
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        directory.parent.chmod(0o700)
        directory.chmod(0o700)
    except OSError as exc:
        raise ServerStartError(
            f"cannot create its working directory {directory}: {exc}", server=spec.name
        ) from exc


def transport_factory(
    spec: ServerSpec, options: ConnectOptions, parent_env: Mapping[str, str]
) -> Callable[[], Transport]:
    """Fresh transports for a server, chosen by its spec; what they use is resolved once, here
    (a missing `${VAR}` is a ServerStartError now). The remote stack is imported only for a remote spec."""
    if isinstance(spec, StdioServerSpec):
        launch = resolve_launch(spec, options, parent_env)
        prepare_private_dir(spec, launch)
        return lambda: StdioTransport(launch)
    from levelcode.mcp.http.endpoint import remote_endpoint
    from levelcode.mcp.http.streamable import StreamableHttpTransport

    startup = spec.startup_timeout or options.startup_timeout
    endpoint = remote_endpoint(
        spec,
        parent_env,
        max_message_bytes=options.max_message_bytes,
        connect_timeout=startup,
        withheld=withheld_from(spec, options, parent_env),
    )
    return lambda: StreamableHttpTransport(endpoint, auth=options.authorize)


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
        transport = self.session.transport
        return transport.pid if isinstance(transport, StdioTransport) else None

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
    ) -> Rendered:
        """The rendered result; every failure becomes an `ERROR: …` string, never an exception."""
        limit = timeout or self.call_timeout
        try:
            return await self._call(tool, arguments, limit)
        except CallTimeout:
            return Rendered(
                f"ERROR: {self.name}/{tool} timed out after {limit:g} s; "
                "LevelCode asked the server to cancel it",
                True,
            )
        except ServerExited as exc:
            return Rendered(
                f"ERROR: server {self.name!r} exited ({exc.detail}) during {tool}{self._stderr()}", True
            )
        except McpError as exc:
            return Rendered(f"ERROR: {self.name}/{tool}: {exc}{self._stderr()}", True)

    async def _call(self, tool: str, arguments: Mapping[str, object], timeout: float) -> Rendered:
        params: dict[str, object] = {"name": tool, "arguments": dict(arguments)}
        for round_ in range(MAX_INPUT_ROUNDS):
            result = await self.session.request("tools/call", params, timeout=timeout, tool=tool)
            kind = result.get("resultType", "complete")
            if kind == "complete":
                return render_call_result(result)
            if kind != "input_required":
                raise ProtocolError(f"unknown resultType {kind!r}", server=self.name, tool=tool)
            if result.get("inputRequests") and (
                self.session.features is None or not self.session.features.handle
            ):
                return Rendered(
                    f"ERROR: {self.name}/{tool} asked for input from the user, "
                    "which LevelCode does not support yet",
                    True,
                )
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
            answers[str(key)] = await self.session.handle_server_request(method, params)
        return answers

    def _stderr(self) -> str:
        lines = self.session.diagnostics()[-STDERR_LINES_IN_ERRORS:]
        label = "last stderr lines" if isinstance(self.spec, StdioServerSpec) else "last HTTP exchanges"
        return (f"\n{label}:\n" + "\n".join(lines)) if lines else ""

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
        await asyncio.gather(self.session.close(), finish_background_closes())


async def connect(
    spec: ServerSpec,
    options: ConnectOptions,
    *,
    hint: Era | None = None,
    parent_env: Mapping[str, str] | None = None,
) -> McpConnection:
    """Start (or reach) the server, negotiate, list its tools — all within its startup timeout."""
    make_transport = transport_factory(spec, options, os.environ if parent_env is None else parent_env)
    startup = spec.startup_timeout or options.startup_timeout

    async def open_session() -> McpSession:
        session = McpSession(make_transport(), features=options.features)
        await session.open()
        return session

    sessions: list[McpSession] = []
    try:
        async with asyncio.timeout(startup):
            if isinstance(spec, StdioServerSpec):
                session, info = await negotiate(
                    open_session, hint, probe_grace=options.probe_grace, hinted_probe=options.hinted_probe
                )
            else:  # a remote server costs no process per attempt: no race, one connection
                session, info = await negotiate_in_turn(open_session, hint)
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
