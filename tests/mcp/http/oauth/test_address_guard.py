"""A server's sign-in cannot send LevelCode to internal addresses (SSRF), over real HTTP on
127.0.0.1. Load-bearing direction: for a remote MCP server, a `resource_metadata` URL (from its
401), a token or a registration endpoint that is on — or whose name resolves to — loopback,
link-local or private addresses is refused with an error naming the URL and why, and nothing
reaches the listener there. The second corpus: a server on this machine, or a company server
whose own name resolves to a private address, signs in through metadata on 127.0.0.1 as before;
and the connection goes to the address that was checked, not to a second lookup. A server whose
refusal came from a public address is not internal, whatever its name resolves to afterwards
(tests/mcp/http/oauth/test_address_rebinding.py drives that rebinding with real lookups).

"Remote" is simulated with a resolver that maps test names to addresses (mcp.remote.test to a
public one), the way a real lookup would; every request that is let through lands on 127.0.0.1.

Through the proxy `HTTP_PROXY`/`HTTPS_PROXY` name (a recording stand-in on 127.0.0.1: the user's
own proxy, which is never refused), the same corpus is refused before anything reaches the proxy,
as is a name that cannot be resolved here to be checked; a public name is handed to the proxy by
name; a name `NO_PROXY` exempts is connected to directly, at the address checked.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence

import pytest

from levelcode.core.errors import AuthorizationRequired, SignInRequired
from levelcode.mcp.http.oauth.address_guard import AddressRefused, Resolve
from levelcode.mcp.http.oauth.authorizer import OAuthAuthorizer
from levelcode.mcp.http.oauth.metadata import OAuthProblem
from levelcode.mcp.http.oauth.requests import fetch_document, oauth_client, register_client, token_request
from levelcode.mcp.protocol.sign_in import SignIn
from levelcode.mcp.protocol.transport import AuthChallenge
from tests.fakes.http_server import Reply, Request, ScriptedHttpServer
from tests.fakes.oauth_server import authorization_server

PUBLIC = "93.184.215.14"
REMOTE = "https://mcp.remote.test/mcp"
CORPORATE = "https://mcp.corp.test/mcp"


def resolver(names: Mapping[str, Sequence[str]]) -> Resolve:
    async def resolve(host: str, port: int) -> list[str]:
        if host not in names:
            raise OSError(f"unknown test name {host}")
        return list(names[host])

    return resolve


NAMES = {
    "mcp.remote.test": [PUBLIC],
    "meta.remote.test": ["127.0.0.1"],  # a remote-looking name that resolves here
    "both.remote.test": [PUBLIC, "127.0.0.1"],
    "mcp.corp.test": ["10.1.2.3"],
    "meta.corp.test": ["127.0.0.1"],
}


class MetadataHost(ScriptedHttpServer):
    """Whatever is asked, its protected-resource document; every request recorded."""

    def __init__(self) -> None:
        super().__init__(self.answer)
        self.document: dict[str, object] = {"resource": REMOTE, "authorization_servers": []}

    async def answer(self, request: Request) -> Reply:
        return Reply.json(self.document)


@pytest.fixture
async def metadata_host() -> AsyncIterator[MetadataHost]:
    server = MetadataHost()
    await server.start()
    yield server
    await server.stop()


def authorizer(url: str) -> OAuthAuthorizer:
    return OAuthAuthorizer("srv", url, None, None, SignIn(), resolve=resolver(NAMES))


async def challenge(auth: OAuthAuthorizer, resource_metadata: str, peer: str | None = None) -> None:
    """A 401 naming `resource_metadata`, as if it came from `peer` (None: not known)."""
    header = f'Bearer resource_metadata="{resource_metadata}"'
    async with asyncio.timeout(20):
        await auth.challenged(AuthChallenge("srv", auth.url, 401, header, peer=peer))


REFUSED_METADATA = {
    "loopback address": ("http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp", "loopback"),
    "name resolving to loopback": ("http://meta.remote.test:{port}/.well-known/x", "resolves to 127.0.0.1"),
    "mapped IPv6 loopback": ("http://[::ffff:127.0.0.1]:{port}/x", "loopback"),
    "a name with a public and a loopback address": ("http://both.remote.test:{port}/x", "127.0.0.1"),
    "cloud metadata service": ("http://169.254.169.254/latest/meta-data/iam/", "link-local"),
    "private network": ("http://10.0.0.7:{port}/x", "private (RFC 1918)"),
}


@pytest.mark.parametrize(("template", "why"), REFUSED_METADATA.values(), ids=REFUSED_METADATA.keys())
async def test_a_remote_servers_metadata_url_on_an_internal_address_is_refused(
    metadata_host: MetadataHost, template: str, why: str
) -> None:
    url = template.format(port=metadata_host.port)
    with pytest.raises(AuthorizationRequired) as raised:
        await challenge(authorizer(REMOTE), url)
    said = str(raised.value)
    assert "LevelCode refused GET" in said
    assert why in said
    assert f"the MCP server {REMOTE} is not on such an address" in said
    assert metadata_host.requests == []  # nothing reached 127.0.0.1


async def test_a_remote_servers_token_and_registration_endpoints_on_internal_addresses_are_refused(
    metadata_host: MetadataHost,
) -> None:
    async with oauth_client(REMOTE, resolver(NAMES)) as http:
        with pytest.raises(AddressRefused, match=r"LevelCode refused POST .*loopback"):
            await token_request(http, f"{metadata_host.origin}/token", {"grant_type": "x"}, {})
        with pytest.raises(AddressRefused, match=r"resolves to 127\.0\.0\.1"):
            await register_client(http, f"http://meta.remote.test:{metadata_host.port}/register", {})
    assert metadata_host.requests == []


async def test_a_server_on_this_machine_signs_in_through_metadata_on_this_machine(
    metadata_host: MetadataHost,
) -> None:
    server_url = "http://127.0.0.1:9/mcp"  # never contacted: the challenge names the metadata
    with authorization_server(resource=server_url) as auth:
        metadata_host.document = {
            "resource": server_url,
            "authorization_servers": [auth.issuer],
        }
        with pytest.raises(SignInRequired, match=f"needs you to sign in at {auth.issuer}"):
            await challenge(authorizer(server_url), f"{metadata_host.origin}/.well-known/x")
        assert "GET /.well-known/oauth-authorization-server" in auth.state.seen
    assert [r.path for r in metadata_host.requests] == ["/.well-known/x"]


async def test_a_company_server_on_a_private_address_may_use_internal_metadata(
    metadata_host: MetadataHost,
) -> None:
    """Its name resolves to 10.1.2.3, so it is internal; the metadata's name resolves (in the
    test's resolver only) to 127.0.0.1, and the request lands there: the checked address is the
    one connected to, as no system lookup knows meta.corp.test."""
    with authorization_server(resource=CORPORATE) as auth:
        metadata_host.document = {
            "resource": CORPORATE,
            "authorization_servers": [auth.issuer],
        }
        with pytest.raises(SignInRequired, match="needs you to sign in"):
            await challenge(authorizer(CORPORATE), f"http://meta.corp.test:{metadata_host.port}/prm")
    assert [r.path for r in metadata_host.requests] == ["/prm"]
    assert metadata_host.requests[0].headers["host"] == f"meta.corp.test:{metadata_host.port}"


async def test_a_server_reached_at_a_public_address_is_not_internal_whatever_its_name_says_now(
    metadata_host: MetadataHost,
) -> None:
    """mcp.corp.test resolves (now) to 10.1.2.3, but its 401 came from a public address."""
    with pytest.raises(AuthorizationRequired, match="is not on such an address itself"):
        await challenge(authorizer(CORPORATE), f"http://meta.corp.test:{metadata_host.port}/prm", PUBLIC)
    assert metadata_host.requests == []


@pytest.mark.parametrize("peer", ["10.1.2.3", "127.0.0.1"], ids=["its own address", "a local proxy's"])
async def test_where_the_server_was_reached_only_ever_takes_internal_away(
    metadata_host: MetadataHost, peer: str
) -> None:
    """An internal address it was reached at is no evidence either way (a proxy on this machine
    answers for any server): the name decides, as without it."""
    with authorization_server(resource=CORPORATE) as auth:
        metadata_host.document = {"resource": CORPORATE, "authorization_servers": [auth.issuer]}
        url = f"http://meta.corp.test:{metadata_host.port}/prm"
        with pytest.raises(SignInRequired, match="needs you to sign in"):
            await challenge(authorizer(CORPORATE), url, peer)
    with pytest.raises(AuthorizationRequired, match="is not on such an address itself"):
        await challenge(authorizer(REMOTE), f"http://meta.remote.test:{metadata_host.port}/x", peer)
    assert [r.path for r in metadata_host.requests] == ["/prm"]


PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")


@pytest.fixture
async def proxy(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[MetadataHost]:
    """The user's proxy, on this machine, set in the environment for http and https alike."""
    server = MetadataHost()
    await server.start()
    for name in PROXY_VARIABLES:
        monkeypatch.setenv(name, server.origin)
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    yield server
    await server.stop()


@pytest.mark.parametrize(("template", "why"), REFUSED_METADATA.values(), ids=REFUSED_METADATA.keys())
async def test_through_a_proxy_an_internal_address_is_still_refused_and_never_sent_to_it(
    proxy: MetadataHost, metadata_host: MetadataHost, template: str, why: str
) -> None:
    url = template.format(port=metadata_host.port)
    with pytest.raises(AuthorizationRequired) as raised:
        await challenge(authorizer(REMOTE), url)
    assert "LevelCode refused GET" in str(raised.value)
    assert why in str(raised.value)
    assert proxy.requests == []
    assert metadata_host.requests == []


async def test_through_a_proxy_a_name_that_cannot_be_resolved_here_is_not_sent(proxy: MetadataHost) -> None:
    async with oauth_client(REMOTE, resolver(NAMES)) as http:
        with pytest.raises(AddressRefused) as raised:
            await token_request(http, "https://nowhere.remote.test/token", {"grant_type": "x"}, {})
    said = str(raised.value)
    assert "LevelCode refused POST https://nowhere.remote.test/token" in said
    assert "nowhere.remote.test could not be resolved" in said
    assert "cannot check that the proxy would not take it to an internal address" in said
    assert proxy.requests == []


async def test_through_a_proxy_a_public_name_goes_to_the_proxy_by_name(proxy: MetadataHost) -> None:
    async with oauth_client(REMOTE, resolver(NAMES)) as http:
        document = await fetch_document(http, "http://mcp.remote.test/.well-known/oauth-protected-resource")
        with pytest.raises(OAuthProblem, match="failed"):  # the stand-in opens no tunnel
            await fetch_document(http, "https://mcp.remote.test/.well-known/oauth-authorization-server")
    assert document == proxy.document
    seen = [(r.method, r.path) for r in proxy.requests]
    assert seen == [
        ("GET", "http://mcp.remote.test/.well-known/oauth-protected-resource"),
        ("CONNECT", "mcp.remote.test:443"),
    ]


async def test_a_name_the_proxy_settings_exempt_is_connected_to_at_the_address_checked(
    proxy: MetadataHost, metadata_host: MetadataHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A company server (internal itself) with its metadata on a name NO_PROXY exempts: direct."""
    monkeypatch.setenv("NO_PROXY", "meta.corp.test")
    async with oauth_client(CORPORATE, resolver(NAMES)) as http:
        document = await fetch_document(http, f"http://meta.corp.test:{metadata_host.port}/prm")
    assert document == metadata_host.document
    assert proxy.requests == []
    assert [r.path for r in metadata_host.requests] == ["/prm"]
