"""Protocol negotiation: the legacy `initialize` handshake and 2026-07-28's `server/discover`.

Which one a server speaks is found out without stalling (see `negotiate`): when nothing is known
about a server, one process gets `server/discover` while a sibling gets `initialize`, and the
answers decide; legacy servers that ignore an unknown first request (old Python SDK servers stay
silent, then exit on the next line) cost at most `probe_grace` over their own start-up. The
verdict is remembered per launch fingerprint, so later connections start the right way at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from levelcode import __version__
from levelcode.core.errors import AuthorizationRequired, McpError, ProtocolError, RemoteError, TransportError
from levelcode.mcp.protocol.session import McpSession

Era = Literal["legacy", "modern"]
MODERN_VERSION = "2026-07-28"
LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
CLIENT_INFO: Mapping[str, object] = {"name": "levelcode", "version": __version__}
DEFAULT_PROBE_GRACE_SECONDS = 0.3
DEFAULT_HINTED_PROBE_SECONDS = 5.0  # a server remembered as modern that stays silent is re-tried as legacy
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

    def offer(self, feature: str) -> bool:
        return feature in self.offers


def modern_envelope(capabilities: Mapping[str, object] | None = None) -> dict[str, object]:
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientCapabilities": dict(capabilities or {}),
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
    )


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
_closing: set[asyncio.Task[None]] = set()


def close_in_background(session: McpSession) -> None:
    """End a probe's losing process without making the winner wait (a server may take seconds)."""
    task = asyncio.ensure_future(session.close())
    _closing.add(task)
    task.add_done_callback(_closing.discard)


async def finish_background_closes() -> None:
    """Wait for every losing probe process to be gone (part of reaping)."""
    while _closing:
        await asyncio.gather(*list(_closing), return_exceptions=True)


async def negotiate(
    open_session: SessionFactory,
    hint: Era | None,
    *,
    probe_grace: float = DEFAULT_PROBE_GRACE_SECONDS,
    hinted_probe: float = DEFAULT_HINTED_PROBE_SECONDS,
) -> tuple[McpSession, ServerInfo]:
    """An open, negotiated session. `open_session` spawns (or connects) a fresh one per call."""
    if hint == "legacy":
        session = await open_session()
        return session, await _closing_on_error(session, legacy_handshake(session))
    if hint == "modern":
        return await _modern_first(open_session, hinted_probe)
    return await _race(open_session, probe_grace)


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


async def _attempt(
    open_session: SessionFactory,
    step: Callable[[McpSession], Awaitable[ServerInfo]],
    sessions: list[McpSession],
) -> tuple[McpSession, ServerInfo]:
    session = await open_session()
    sessions.append(session)
    return session, await step(session)


async def _race(open_session: SessionFactory, grace: float) -> tuple[McpSession, ServerInfo]:
    sessions: list[McpSession] = []
    modern = asyncio.create_task(_attempt(open_session, modern_discover, sessions))
    legacy = asyncio.create_task(_attempt(open_session, legacy_handshake, sessions))
    winner: tuple[McpSession, ServerInfo] | None = None
    try:
        winner = await _pick(modern, legacy, grace)
        return winner
    finally:
        for task in (modern, legacy):
            task.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.gather(modern, legacy, return_exceptions=True)
        if winner is None:
            await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)
        for loser in (s for s in sessions if winner is not None and s is not winner[0]):
            close_in_background(loser)


async def _pick(
    modern: asyncio.Task[tuple[McpSession, ServerInfo]],
    legacy: asyncio.Task[tuple[McpSession, ServerInfo]],
    grace: float,
) -> tuple[McpSession, ServerInfo]:
    await asyncio.wait({modern, legacy}, return_when=asyncio.FIRST_COMPLETED)
    if modern.done() and modern.exception() is None:
        return modern.result()
    if modern.done():
        return await legacy
    if legacy.exception() is not None:
        try:
            return await modern
        except McpError:
            return await legacy  # raises the legacy attempt's error, the more telling one
    with contextlib.suppress(TimeoutError, McpError):
        return await asyncio.wait_for(asyncio.shield(modern), grace)
    return legacy.result()


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
