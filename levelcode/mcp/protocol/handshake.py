"""Protocol negotiation: the legacy `initialize` handshake and 2026-07-28's `server/discover`.

A stdio server is started once, and its era found on that one process (`negotiate`): LevelCode
sends `initialize` first, and only a server that refuses it gets `server/discover` next. The
2026-07-28 stdio binding suggests the other order (discover first, `initialize` after a non-modern
error or a timeout), but that order cannot be kept on one process with the servers that need it
most: old Python SDK servers (mcp 1.3, as mcp-server-time 2025.9.25 and mcp-server-git 2025.1.14
ship) ignore the unknown request and then exit with a ~140-line traceback on the next line
whatever it is, and later ones (mcp 1.9-1.30) answer -32602 but write ~75 lines of validation
errors to their log each time. `initialize` first costs such servers nothing; a dual-era server
answers it and is spoken to in the legacy era (complete for everything LevelCode does); a
modern-only server refuses it - every modern server answers every request, and the spec asks it
to name its versions there - and is asked `server/discover` on the same, stateless, process: one
round trip more, once. The verdict is remembered per launch fingerprint (protocol_memory.py); a
server remembered as modern starts with `server/discover` directly, and only if that verdict
turns out wrong is it started again the legacy way. Over HTTP an unknown request costs a refusal,
never a process, so remote servers negotiate in turn, discover first (`negotiate_in_turn`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from levelcode import __version__
from levelcode.core.errors import AuthorizationRequired, McpError, ProtocolError, RemoteError, TransportError
from levelcode.mcp.protocol.limits import DEFAULT_HINTED_PROBE_SECONDS
from levelcode.mcp.protocol.session import McpSession
from levelcode.mcp.protocol.tasks import EXTENSION as TASKS_EXTENSION

Era = Literal["legacy", "modern"]
MODERN_VERSION = "2026-07-28"
LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
CLIENT_INFO: Mapping[str, object] = {"name": "levelcode", "version": __version__}
UNSUPPORTED_VERSION = -32022  # 2026-07-28: "Unsupported protocol version", with the versions it supports


OFFERED_FEATURES = ("tools", "resources", "prompts", "logging", "completions")
MAX_INSTRUCTIONS_CHARS = 4_000


@dataclass(frozen=True)
class ServerInfo:
    era: Era
    protocol: str
    name: str | None = None
    version: str | None = None
    instructions: str | None = None  # third-party text, capped; the model reads it (marked as such)
    tools_list_changed: bool = False
    offers: tuple[str, ...] = ("tools",)  # which of OFFERED_FEATURES its capabilities declare
    resources_list_changed: bool = False
    prompts_list_changed: bool = False
    task_calls: bool = False  # it may run a tools/call as a task (2025-11-25 tasks, or the extension)
    resources_subscribe: bool = False  # it tells about updates of resources one subscribes to

    def offer(self, feature: str) -> bool:
        return feature in self.offers


def modern_envelope(capabilities: Mapping[str, object] | None = None) -> dict[str, object]:
    declared = dict(capabilities or {})
    extensions = declared.get("extensions")
    # The tasks extension: a long call may come back as a task, which LevelCode follows.
    declared["extensions"] = {**(extensions if isinstance(extensions, Mapping) else {}), TASKS_EXTENSION: {}}
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientCapabilities": declared,
        "io.modelcontextprotocol/clientInfo": dict(CLIENT_INFO),
    }


async def legacy_handshake(session: McpSession) -> ServerInfo:
    capabilities = session.capabilities()
    params = {
        "protocolVersion": LEGACY_VERSIONS[0],
        "capabilities": capabilities,
        "clientInfo": dict(CLIENT_INFO),
    }
    result = await session.request("initialize", params, timeout=None)
    version = result.get("protocolVersion")
    if version not in LEGACY_VERSIONS:
        raise ProtocolError(
            f"the server speaks MCP {version!r}; "
            f"LevelCode speaks {', '.join((MODERN_VERSION, *LEGACY_VERSIONS))}",
            server=session.server,
        )
    session.notify("notifications/initialized")
    return _info(result, "legacy", str(version), result.get("serverInfo"))


async def modern_discover(session: McpSession) -> ServerInfo:
    session.envelope = modern_envelope(session.capabilities())
    try:
        result = await session.request("server/discover", timeout=None)
        versions = result.get("supportedVersions")
        if not isinstance(versions, list) or MODERN_VERSION not in versions:
            raise ProtocolError(f"server/discover does not offer {MODERN_VERSION}", server=session.server)
    except BaseException:
        session.envelope = None
        raise
    meta = result.get("_meta")
    server_info = meta.get("io.modelcontextprotocol/serverInfo") if isinstance(meta, Mapping) else None
    return _info(result, "modern", MODERN_VERSION, server_info)


def _info(result: Mapping[str, object], era: Era, protocol: str, server_info: object) -> ServerInfo:
    about = server_info if isinstance(server_info, Mapping) else {}
    raw = result.get("capabilities")
    capabilities: Mapping[str, object] = raw if isinstance(raw, Mapping) else {}
    instructions = result.get("instructions")
    return ServerInfo(
        era=era,
        protocol=protocol,
        name=_text(about.get("name")),
        version=_text(about.get("version")),
        instructions=_instructions(instructions),
        tools_list_changed=_list_changed(capabilities, "tools"),
        offers=tuple(f for f in OFFERED_FEATURES if isinstance(capabilities.get(f), Mapping)),
        resources_list_changed=_list_changed(capabilities, "resources"),
        prompts_list_changed=_list_changed(capabilities, "prompts"),
        task_calls=_task_calls(capabilities, era),
        resources_subscribe=_flag(capabilities, "resources", "subscribe"),
    )


def _flag(capabilities: Mapping[str, object], feature: str, flag: str) -> bool:
    declared = capabilities.get(feature)
    return isinstance(declared, Mapping) and declared.get(flag) is True


def _task_calls(capabilities: Mapping[str, object], era: Era) -> bool:
    if era == "modern":
        extensions = capabilities.get("extensions")
        return isinstance(extensions, Mapping) and isinstance(extensions.get(TASKS_EXTENSION), Mapping)
    path: object = capabilities
    for key in ("tasks", "requests", "tools", "call"):
        path = path.get(key) if isinstance(path, Mapping) else None
    return isinstance(path, Mapping)


def _list_changed(capabilities: Mapping[str, object], feature: str) -> bool:
    declared = capabilities.get(feature)
    return isinstance(declared, Mapping) and declared.get("listChanged") is True


def _instructions(text: object) -> str | None:
    if not isinstance(text, str) or not text.strip():
        return None
    if len(text) <= MAX_INSTRUCTIONS_CHARS:
        return text
    return text[:MAX_INSTRUCTIONS_CHARS] + f"\n[… cut at {MAX_INSTRUCTIONS_CHARS:,} characters]"


def _text(value: object) -> str | None:
    return value[:200] if isinstance(value, str) else None


SessionFactory = Callable[[], Awaitable[McpSession]]


async def negotiate(
    open_session: SessionFactory,
    hint: Era | None,
    *,
    hinted_probe: float = DEFAULT_HINTED_PROBE_SECONDS,
) -> tuple[McpSession, ServerInfo]:
    """An open, negotiated session on one process. `open_session` spawns a fresh one per call; it
    is called a second time only when a remembered "modern" verdict turns out wrong."""
    if hint == "modern":
        return await _modern_first(open_session, hinted_probe)
    session = await open_session()
    return session, await _closing_on_error(session, initialize_first(session))


async def initialize_first(session: McpSession) -> ServerInfo:
    """`initialize`; if the server refuses it — it answered, so it lives and reads what it is sent,
    as a modern-only server does — `server/discover` on the same process."""
    try:
        return await legacy_handshake(session)
    except (RemoteError, ProtocolError) as refused:
        try:
            return await modern_discover(session)
        except (RemoteError, ProtocolError) as exc:
            raise ProtocolError(
                f"the server refused initialize ({refused}) and server/discover ({exc})",
                server=session.server,
            ) from exc


async def _closing_on_error(session: McpSession, step: Awaitable[ServerInfo]) -> ServerInfo:
    try:
        return await step
    except BaseException:
        await session.close()
        raise


async def _modern_first(open_session: SessionFactory, probe: float) -> tuple[McpSession, ServerInfo]:
    session = await open_session()
    try:
        return session, await asyncio.wait_for(modern_discover(session), probe)
    except (RemoteError, ProtocolError):  # it answered: alive, and speaks the legacy protocol
        return session, await _closing_on_error(session, legacy_handshake(session))
    except (TransportError, TimeoutError):  # it exited on, or ignored, the request: restart it the legacy way
        await session.close()
    except BaseException:
        await session.close()
        raise
    fresh = await open_session()
    return fresh, await _closing_on_error(fresh, legacy_handshake(fresh))


async def negotiate_in_turn(open_session: SessionFactory, hint: Era | None) -> tuple[McpSession, ServerInfo]:
    """One connection, one attempt after another: for transports where an unknown request costs a
    refusal, never a dead process (HTTP). `server/discover` first (again once, if the server asks
    for a version we speak), then `initialize` on the same connection."""
    session = await open_session()
    return session, await _closing_on_error(session, _in_turn(session, hint))


async def _in_turn(session: McpSession, hint: Era | None) -> ServerInfo:
    if hint != "legacy":
        for _attempt in range(2):
            try:
                return await modern_discover(session)
            except AuthorizationRequired:
                raise
            except RemoteError as exc:
                if exc.code != UNSUPPORTED_VERSION or not _offers_modern(exc.data):
                    break
            except McpError:
                break
    return await legacy_handshake(session)


def _offers_modern(data: object) -> bool:
    supported = data.get("supported") if isinstance(data, Mapping) else None
    return isinstance(supported, list) and MODERN_VERSION in supported
