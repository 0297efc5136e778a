"""The sign-in's HTTP connections, checked where they are made: every name is resolved once, each
address it resolves to is checked (addresses.py), and the connection goes to an address that was
checked — never to a second lookup's answer, which a name with a zero TTL could point at
127.0.0.1 in between (DNS rebinding). Whether the MCP server is itself internal (and so may keep
its sign-in on internal addresses) is judged by the address its refusal came from, when known:
a lookup of its name made afterwards may answer what the name's owner likes.

I/O at the edge: resolves names and opens sockets (through httpcore2's own backend). A refusal
is `AddressRefused`, naming the host, the address and why; the request layer adds the URL.

Through the proxy the environment names for a URL (`HTTPS_PROXY`, `HTTP_PROXY`, less `NO_PROXY`),
the proxy connects, not LevelCode. The proxy is the user's (often on this machine): its own address
is never refused. The target is: its name is resolved here and checked like a direct one, a name
that cannot be resolved here is not sent (it cannot be checked), and the proxy is then given the
name, not the address — proxies allow, log and verify by name — so the proxy's own lookup is the
one that counts there (a name whose answer changes between the two lookups is the one window a
proxy leaves; a direct connection has none).
"""

from __future__ import annotations

import asyncio
import socket
import urllib.request
from collections.abc import Awaitable, Callable, Iterable, Sequence
from urllib.parse import urlsplit

import httpcore2
import httpx2

from levelcode.mcp.http.oauth.addresses import internal_kind, is_internal_host, literal_address
from levelcode.mcp.http.oauth.metadata import OAuthProblem
from levelcode.policy.network_hosts import default_port

# (host, port) → the addresses it resolves to; tests put their own in (a name mapped to 127.0.0.1)
Resolve = Callable[[str, int], Awaitable[Sequence[str]]]


class AddressRefused(OAuthProblem):
    """A sign-in request would reach an internal address for a server that is not internal."""


async def system_resolve(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class AddressGuard:
    """Where one server's sign-in may connect: anywhere when the server itself is on this machine
    or an internal network, else only to public addresses."""

    def __init__(
        self, server_url: str, resolve: Resolve | None = None, reached_at: str | None = None
    ) -> None:
        """`reached_at`: the address the server's refusal came from (through a proxy, the proxy's)."""
        self.server_url = server_url
        self.resolve = resolve or system_resolve
        self.reached_at = reached_at
        self._server_internal: bool | None = None

    async def addresses_for(self, host: str, port: int) -> list[str]:
        """The addresses to connect to for `host`, each checked; AddressRefused if any is internal."""
        literal = literal_address(host)
        try:
            addresses = [literal] if literal is not None else list(await self.resolve(host, port))
        except OSError as exc:
            raise httpcore2.ConnectError(f"{host} could not be resolved ({exc})") from None
        if not addresses:
            raise httpcore2.ConnectError(f"{host} resolves to no address")
        internal = [(address, kind) for address in addresses if (kind := internal_kind(address))]
        if internal and not await self.server_is_internal():  # the server is looked up only then
            address, kind = internal[0]
            raise AddressRefused(self._refusal(host, address, kind))
        return addresses

    async def server_is_internal(self) -> bool:
        if self._server_internal is None:
            self._server_internal = await self._judge_server()
        return self._server_internal

    async def _judge_server(self) -> bool:
        """Internal by its name — and, where the server was reached, by that address too: a public
        one outweighs any lookup (a proxy's own address is no evidence the other way)."""
        if self.reached_at is not None and internal_kind(self.reached_at) is None:
            return False
        parts = urlsplit(self.server_url)
        host = parts.hostname or ""
        literal = literal_address(host)
        if literal is not None:
            return internal_kind(literal) is not None
        try:
            port = parts.port or default_port(parts.scheme) or 443
            addresses = [] if not host else list(await self.resolve(host, port))
        except OSError:
            addresses = []
        return is_internal_host(host, addresses)

    def _refusal(self, host: str, address: str, kind: str) -> str:
        named = host if literal_address(host) is not None else f"{host} resolves to {address}, which"
        return (
            f"{named} is a {kind} address, and the MCP server {self.server_url} is not on such an "
            "address itself: LevelCode follows a remote server's sign-in only to public addresses"
        )


class GuardedBackend(httpcore2.AsyncNetworkBackend):
    """httpcore2's network backend, connecting only to addresses the guard checked."""

    def __init__(self, guard: AddressGuard) -> None:
        self.guard = guard
        self.inner = httpcore2.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore2.SOCKET_OPTION] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        async with asyncio.timeout(timeout):
            addresses = await self.guard.addresses_for(host, port)
        failure: Exception | None = None
        for address in addresses:
            try:
                return await self.inner.connect_tcp(
                    address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except (httpcore2.ConnectError, httpcore2.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore2.SOCKET_OPTION] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        raise httpcore2.ConnectError("a sign-in never connects to a unix socket")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class GuardedTransport(httpx2.AsyncBaseTransport):
    """Direct connections through the guarded backend; a URL the environment's proxy settings
    send to a proxy goes there once its name has been checked."""

    def __init__(self, guard: AddressGuard) -> None:
        self.guard = guard
        self.direct = httpx2.AsyncHTTPTransport(trust_env=True)
        self.direct._pool = httpcore2.AsyncConnectionPool(  # the pool httpx2 would build, plus the backend
            ssl_context=httpx2.create_ssl_context(trust_env=True), network_backend=GuardedBackend(guard)
        )
        self.proxied: dict[str, httpx2.AsyncHTTPTransport] = {}

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        proxy = _environment_proxy(request.url.scheme, request.url.host)
        if proxy is None:
            return await self.direct.handle_async_request(request)
        await self._check_for_proxy(request.url)
        if proxy not in self.proxied:
            self.proxied[proxy] = httpx2.AsyncHTTPTransport(proxy=proxy, trust_env=True)
        return await self.proxied[proxy].handle_async_request(request)

    async def _check_for_proxy(self, url: httpx2.URL) -> None:
        """What the guard would refuse directly is not handed to the proxy either."""
        port = url.port or default_port(url.scheme) or 443
        try:
            await self.guard.addresses_for(url.host, port)
        except httpcore2.ConnectError as exc:
            if not await self.guard.server_is_internal():
                raise AddressRefused(
                    f"{exc}, so LevelCode cannot check that the proxy would not take it to an internal "
                    "address; it does not send it there"
                ) from None

    async def aclose(self) -> None:
        for transport in (self.direct, *self.proxied.values()):
            await transport.aclose()


def _environment_proxy(scheme: str, host: str) -> str | None:
    """The proxy `HTTPS_PROXY`/`HTTP_PROXY` name for this URL, unless `NO_PROXY` exempts it."""
    proxy = urllib.request.getproxies().get(scheme)
    if not proxy or urllib.request.proxy_bypass(host):
        return None
    return proxy
