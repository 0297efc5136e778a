"""Which transport a server gets, chosen from its spec, and how its protocol era is found on it.

The one module that knows every transport: stdio servers get our subprocess transport and find
their era on the one process they start as (`initialize` first, see protocol/handshake.py); remote
servers get Streamable HTTP (or legacy SSE) and negotiate in turn on one connection. The remote
stack is imported only for a remote spec, so nothing on the stdio path loads it.

`transport_plan` is the one way a connection reaches its server's transports; the hub and
`connect` take it as a `TransportPlanner` (their default, and the only one production uses), so
a caller that hands them another planner — the tests' in-memory servers — goes down the very
same path from the hub to the session, with only the transport replaced. It never spawns or
contacts anything itself: its plan does, when asked for a transport.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from levelcode.mcp.config.environment import Withheld
from levelcode.mcp.config.specs import HttpServerSpec, ServerSpec, StdioServerSpec
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.launch.resolve import server_launch, withheld_from
from levelcode.mcp.launch.server_box import SandboxChoice, server_box
from levelcode.mcp.protocol.handshake import Era, ServerInfo, SessionFactory, negotiate, negotiate_in_turn
from levelcode.mcp.protocol.session import McpSession
from levelcode.mcp.protocol.transport import Authorizer, HookAuthorizer, Transport
from levelcode.mcp.stdio.pipe_transport import StdioTransport
from levelcode.mcp.stdio.spawn import end_unused

if TYPE_CHECKING:
    from levelcode.mcp.live.early_start import EarlyServer

Negotiation = Callable[[SessionFactory, Era | None], Awaitable[tuple[McpSession, ServerInfo]]]


@dataclass(frozen=True)
class TransportPlan:
    """Fresh transports for one server, and how to find its protocol era on them."""

    make: Callable[[], Transport]
    negotiate: Negotiation


class TransportPlanner(Protocol):
    """What the hub and `connect` ask for a server's transports: `transport_plan`'s signature."""

    def __call__(
        self,
        spec: ServerSpec,
        options: ConnectOptions,
        parent_env: Mapping[str, str],
        begun: EarlyServer | None = None,
        sandbox: SandboxChoice | None = None,
    ) -> TransportPlan: ...


def on_one_process(options: ConnectOptions) -> Negotiation:
    """Find the era on the one process a server starts as (protocol/handshake.py `negotiate`)."""

    async def negotiation(open_session: SessionFactory, hint: Era | None) -> tuple[McpSession, ServerInfo]:
        return await negotiate(open_session, hint, hinted_probe=options.hinted_probe)

    return negotiation


def transport_plan(
    spec: ServerSpec,
    options: ConnectOptions,
    parent_env: Mapping[str, str],
    begun: EarlyServer | None = None,
    sandbox: SandboxChoice | None = None,
) -> TransportPlan:
    """What the server's transports use is resolved once, here (or, for a server `begun` from the
    start's plan, there, with these very options): a missing `${VAR}` is a ServerStartError now,
    before anything is spawned or contacted."""
    if isinstance(spec, StdioServerSpec):
        return _stdio_plan(spec, options, parent_env, begun, sandbox)
    from levelcode.mcp.http.endpoint import remote_endpoint
    from levelcode.mcp.http.streamable import StreamableHttpTransport

    withheld = withheld_from(spec, options, parent_env)
    endpoint = remote_endpoint(
        spec,
        parent_env,
        max_message_bytes=options.max_message_bytes,
        connect_timeout=spec.startup_timeout or options.startup_timeout,
        withheld=withheld,
    )
    auth = _authorizer(spec, options, parent_env, withheld)  # one per server: shared by its attempts
    return TransportPlan(
        lambda: StreamableHttpTransport(endpoint, auth=auth),
        negotiate_in_turn,  # a remote server costs no process per attempt: one connection, in turn
    )


def _authorizer(
    spec: HttpServerSpec, options: ConnectOptions, parent_env: Mapping[str, str], withheld: Withheld
) -> Authorizer | None:
    """OAuth, unless the entry turns it off or sends its own Authorization header (a static token)."""
    if options.authorize is not None:
        return HookAuthorizer(options.authorize)
    if spec.oauth is not None and not spec.oauth.enabled:
        return None
    if any(key.lower() == "authorization" for key, _value in spec.headers):
        return None
    from levelcode.mcp.http.oauth.authorizer import OAuthAuthorizer
    from levelcode.mcp.http.oauth.entry_secrets import oauth_secrets

    secrets = oauth_secrets(
        spec.oauth, parent_env, server=spec.name, tier=spec.provenance.tier, withheld=withheld
    )
    return OAuthAuthorizer(spec.name, spec.url, spec.oauth, secrets, options.sign_in)


def _stdio_plan(
    spec: StdioServerSpec,
    options: ConnectOptions,
    parent_env: Mapping[str, str],
    begun: EarlyServer | None,
    sandbox: SandboxChoice | None,
) -> TransportPlan:
    launch = begun.launch if begun is not None else server_launch(spec, options, parent_env)
    spawned = [begun.process] if begun is not None and begun.process is not None else []
    box = server_box(spec, sandbox)
    if box is not None:  # raises ServerStartError, before anything is spawned, when it cannot be
        for process in spawned:  # never the case (the early start spawns no server to be boxed)
            end_unused(process)
        spawned.clear()
        from levelcode.mcp.launch.sandboxed_launch import sandboxed_launch

        launch = sandboxed_launch(
            spec,
            launch,
            box,
            workspace=options.workspace,
            servers_dir=options.servers_dir,
            confinement=options.sandbox,
        )

    def make() -> StdioTransport:  # the process spawned early goes to the first transport only
        return StdioTransport(launch, spawned.pop() if spawned else None)

    return TransportPlan(make, on_one_process(options))
