"""The HTTP edge: one httpx2 client per server, requests that follow a redirect only within the
server's origin, bodies read under a size cap, and httpx2's exceptions translated into ours.

The only module that touches httpx2's request API. Never logs a header, a body or a query string;
what it reports names the method, the path and the status.
"""

from __future__ import annotations

import functools
import socket
import ssl
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

import httpx2

from levelcode.core.errors import AuthorizationRequired, MessageTooLarge, TransportError
from levelcode.mcp.http.origin import same_origin, shown_url

MAX_REDIRECTS = 5
WRITE_TIMEOUT_SECONDS = 30.0
IDLE_READ_SECONDS = 300.0  # between two bytes of a stream; a request's own timeout is shorter
_KEEPS_METHOD = frozenset({307, 308})


def make_client(connect_timeout: float, *, tls: bool) -> httpx2.AsyncClient:
    """A client for one server. Redirects are never followed by httpx2 itself (see `exchange`)."""
    timeout = httpx2.Timeout(
        connect=connect_timeout, read=IDLE_READ_SECONDS, write=WRITE_TIMEOUT_SECONDS, pool=connect_timeout
    )
    # Building a TLS context reads the system's trust store (~0.1 s): once per process, and never
    # for a plain-http server, whose client cannot reach an https URL (redirects keep the origin).
    verify: ssl.SSLContext | bool = _tls_context() if tls else False
    return httpx2.AsyncClient(timeout=timeout, follow_redirects=False, verify=verify)


@functools.cache
def _tls_context() -> ssl.SSLContext:
    return httpx2.create_ssl_context()


class Refused(TransportError):
    """The server redirected to another origin; nothing was sent there."""


@asynccontextmanager
async def exchange(
    client: httpx2.AsyncClient,
    method: str,
    url: str,
    *,
    server: str,
    headers: Mapping[str, str],
    body: bytes | None = None,
) -> AsyncIterator[httpx2.Response]:
    """A streamed response; redirects are followed only within `url`'s origin, keeping the method."""
    try:
        request = client.build_request(method, url, headers=dict(headers), content=body)
        response = await client.send(request, stream=True, follow_redirects=False)
        for _ in range(MAX_REDIRECTS):
            target = _follow(response, method)
            if target is None:
                break
            await response.aclose()
            request = client.build_request(method, target, headers=dict(headers), content=body)
            response = await client.send(request, stream=True, follow_redirects=False)
        try:
            yield response
        finally:
            await response.aclose()
    except (httpx2.HTTPError, httpx2.InvalidURL) as exc:
        raise translate(exc, server=server, method=method, url=url) from None


class StreamDropped(TransportError):
    """A response body broke off mid-stream (the connection dropped or went idle too long)."""


async def stream_chunks(response: httpx2.Response, *, server: str) -> AsyncIterator[bytes]:
    """The body as it arrives; a broken connection ends it with StreamDropped, not httpx2's error."""
    try:
        async for chunk in response.aiter_bytes():
            yield chunk
    except httpx2.HTTPError as exc:
        raise StreamDropped(f"the stream broke off ({type(exc).__name__})", server=server) from None


def _follow(response: httpx2.Response, method: str) -> str | None:
    location = response.headers.get("location")
    if not response.is_redirect or location is None:
        return None
    if method != "GET" and response.status_code not in _KEEPS_METHOD:
        return None
    target = str(response.url.join(location))
    return target if same_origin(str(response.url), target) and "@" not in target.split("/")[2] else None


def redirect_refusal(response: httpx2.Response, *, server: str) -> TransportError | None:
    """The error for a redirect left unfollowed (another origin, or one that would drop the body)."""
    location = response.headers.get("location")
    if not response.is_redirect or location is None:
        return None
    target = shown_url(str(response.url.join(location)))
    return Refused(
        f"the server redirected to {target}; LevelCode does not follow it (a server's headers and "
        "credentials go only to its own origin). If that is the right address, put it in the config",
        server=server,
    )


async def read_capped(response: httpx2.Response, limit: int, *, server: str) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise MessageTooLarge(f"response larger than the {limit} byte limit", server=server)
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            raise MessageTooLarge(f"response larger than the {limit} byte limit", server=server)
        chunks.append(chunk)
    return b"".join(chunks)


def translate(exc: Exception, *, server: str, method: str, url: str) -> TransportError:
    """One of ours, naming the URL without its query or user info, never a header."""
    where = f"{method} {shown_url(url)}"
    if isinstance(exc, httpx2.ConnectTimeout):
        why = "timed out connecting"
    elif isinstance(exc, httpx2.ConnectError):
        why = f"cannot connect ({_reason(exc)})"
    elif isinstance(exc, httpx2.TimeoutException):
        why = "timed out waiting for the server"
    elif isinstance(exc, httpx2.RemoteProtocolError):
        why = "the server broke off the response"
    elif isinstance(exc, httpx2.UnsupportedProtocol | httpx2.InvalidURL):
        why = "the URL cannot be used"
    else:
        why = f"request failed ({type(exc).__name__})"
    return TransportError(f"{where}: {why}", server=server)


def _reason(exc: BaseException) -> str:
    """What the operating system said, found down the exception's chain."""
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            break
        if isinstance(seen, ConnectionRefusedError):
            return "connection refused"
        if isinstance(seen, socket.gaierror):
            return "unknown host"
        if isinstance(seen, ssl.SSLCertVerificationError):
            return "TLS certificate rejected"
        if isinstance(seen, TimeoutError):
            return "timed out"
        seen = seen.__cause__ or seen.__context__
    return str(exc).strip()[:120] or type(exc).__name__


def authorization_refusal(
    server: str, status: int, challenge: str | None, dpop_nonce: str | None = None, peer: str | None = None
) -> AuthorizationRequired:
    return AuthorizationRequired(
        f"the server requires authorization (HTTP {status}) and offers no OAuth sign-in LevelCode could "
        "use; if the server takes a token, put it in the entry's headers, e.g. "
        '"Authorization": "Bearer ${TOKEN}"',
        server=server,
        status=status,
        challenge=challenge,
        dpop_nonce=dpop_nonce,
        peer=peer,
    )


def peer_address(response: httpx2.Response) -> str | None:
    """The address the response came from (a proxy's, through one), as the socket says."""
    stream = response.extensions.get("network_stream")
    try:
        address = stream.get_extra_info("server_addr") if stream is not None else None
    except Exception:  # a stream that cannot say (closed, not a socket): nothing is known
        return None
    return str(address[0]) if isinstance(address, tuple) and address else None


def content_type(response: httpx2.Response) -> str:
    return response.headers.get("content-type", "").partition(";")[0].strip().lower()
