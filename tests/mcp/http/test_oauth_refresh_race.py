"""A refresh cannot lose a sign-in. A strict authorization server on 127.0.0.1 rotates refresh
tokens (a used one is refused with invalid_grant, as real ones do) and answers slowly, while
LevelCode processes renew at once. Load-bearing direction: every process's call succeeds, exactly
one refresh per lapse reaches the server, nothing is refused, and the token kept is the rotated
one, still good — so the next start needs no sign-in. Each way a rotated token was lost is here:
two processes after the lock at once (without it the second presents the used refresh token), a
sign-in at a slow token endpoint followed by several processes, with the file store and with the
system keyring (before: `mcp login` renewed its short-lived token on every request and its last
renewal, cut off as the connection closed, was answered to nobody), `mcp login` renewing nothing
it was just given, and a call cancelled while its refresh was under way."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail

from levelcode.mcp.http.oauth.metadata import canonical_resource
from levelcode.mcp.http.oauth.store import STORE_FILE, CredentialStore, issuer_key, store_key
from levelcode.platform import paths
from tests.fakes.oauth_server import AuthorizationServer, authorization_server
from tests.mcp.http.test_oauth_real_servers import sign_in_connect
from tests.support.browser import Browser, login_elsewhere
from tests.support.cli import LEVELCODE, cli_env, write_settings
from tests.support.http_servers import ServerProcess, free_port, running, sdk_server
from tests.support.secret_service import secret_service

# keyring's Secret Service backend leaks a D-Bus connection per call (tests/support/secret_service.py
# collects them when the service ends); one the garbage collector frees mid-test is not this test's.
pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")

SHORT_LIVED = 45.0  # seconds: less than the minute a token used to be renewed ahead of its expiry


@pytest.fixture
def secured(isolated_home: object) -> Iterator[tuple[AuthorizationServer, ServerProcess]]:
    port = free_port()
    with authorization_server(resource=f"http://127.0.0.1:{port}/mcp") as auth:
        server = sdk_server("--oauth", auth.issuer)
        server.port, server.argv[2] = port, str(port)
        with running(server):
            yield auth, server


@pytest.fixture(params=["file", "keyring"])
def store_env(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, str]]:
    """What LevelCode's processes need to keep sign-ins in the 0600 file, or in a real keyring
    (this process reads that one too, to see what was kept)."""
    if request.param == "file":
        yield {}
        return
    with secret_service(tmp_path / "keyring-home") as service:
        for name, value in service.env.items():
            monkeypatch.setenv(name, value)
        keyring.set_keyring(service.backend())  # type: ignore[arg-type]
        try:
            yield service.env
        finally:
            keyring.set_keyring(fail.Keyring())


def kept_tokens(server_url: str = "") -> dict[str, object]:
    """The tokens of the one sign-in kept, wherever the store keeps it."""
    store = CredentialStore(paths.state_dir())
    [key] = [key for key in store.keys_for("secured") if key.count("|") == 2]
    record = store.load(key)
    assert record is not None, f"the sign-in {key} is indexed but not kept"
    if server_url:
        base = store_key("secured", canonical_resource(server_url))
        assert key == issuer_key(base, str(record["issuer"]))
    return dict(record["tokens"])


def call(word: str, env: Mapping[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(LEVELCODE), "mcp", "call", "secured", "echo", json.dumps({"message": word})],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(paths.state_dir().parent, **env),
    )


def all_at_once(words: tuple[str, ...], env: Mapping[str, str] | None = None) -> list[tuple[int, str, str]]:
    racers = [call(word, env or {}) for word in words]
    outputs = [racer.communicate(timeout=90) for racer in racers]
    return [(racer.returncode, out, err) for racer, (out, err) in zip(racers, outputs, strict=True)]


def echoed(words: tuple[str, ...], results: list[tuple[int, str, str]]) -> None:
    assert [(code, out) for code, out, _err in results] == [(0, f"Echo: {w}\n") for w in words], results


async def test_two_processes_refresh_once_and_both_keep_the_rotated_token(
    secured: tuple[AuthorizationServer, ServerProcess], isolated_home: object
) -> None:
    auth, server = secured
    first = await sign_in_connect(server.url, paths.state_dir(), Browser())
    await first.close()
    write_settings(paths.state_dir().parent, {"mcpServers": {"secured": {"url": server.url}}})
    store = paths.state_dir() / STORE_FILE
    store.write_text(store.read_text().replace('"expires_at": ', '"expires_at": 1, "was": '))
    auth.expire_access_tokens()
    issued_refresh = kept_tokens()["refresh_token"]
    auth.state.refresh_latency = 1.5

    echoed(("one", "two"), all_at_once(("one", "two")))
    assert auth.state.seen.count("POST /token refresh_token") == 1, auth.state.seen
    assert auth.state.refusals == []
    kept = kept_tokens()
    assert kept["refresh_token"] != issued_refresh
    assert kept["refresh_token"] in auth.state.refresh  # the rotated one, still good
    assert kept["access_token"] in auth.state.access


def test_a_sign_in_at_a_slow_token_endpoint_then_processes_at_once_lose_nothing(
    secured: tuple[AuthorizationServer, ServerProcess], isolated_home: Path, store_env: dict[str, str]
) -> None:
    auth, server = secured
    write_settings(isolated_home, {"mcpServers": {"secured": {"url": server.url}}})
    auth.state.token_latency = 2.0  # every token request: the code exchange and each refresh
    auth.state.token_seconds = SHORT_LIVED

    code, said = login_elsewhere(isolated_home, "secured", paste=False, **store_env)
    assert code == 0, said
    words = ("one", "two", "three")
    echoed(words, all_at_once(words, store_env))  # right after the sign-in

    auth.expire_access_tokens()  # time passes: each process must refresh, or take another's refresh
    echoed(words, all_at_once(words, store_env))
    assert auth.state.seen.count("POST /token refresh_token") == 1, auth.state.seen

    auth.expire_access_tokens()  # and the next start finds a refresh token that still works
    echoed(("later",), all_at_once(("later",), store_env))
    assert auth.state.refusals == []
    assert auth.state.seen.count("GET /authorize") == 1  # the user was asked once
    kept = kept_tokens(server.url)
    assert kept["refresh_token"] in auth.state.refresh
    assert kept["access_token"] in auth.state.access


def test_mcp_login_renews_nothing_it_was_just_given(
    secured: tuple[AuthorizationServer, ServerProcess], isolated_home: Path
) -> None:
    """A token that lives less than a minute is not "about to lapse" the moment it is issued."""
    auth, server = secured
    write_settings(isolated_home, {"mcpServers": {"secured": {"url": server.url}}})
    auth.state.token_seconds = SHORT_LIVED
    code, said = login_elsewhere(isolated_home, "secured", paste=False)
    assert code == 0, said
    assert auth.state.seen.count("POST /token authorization_code") == 1
    assert auth.state.seen.count("POST /token refresh_token") == 0, auth.state.seen
    assert kept_tokens()["refresh_token"] in auth.state.refresh


async def test_a_refresh_under_way_when_its_call_is_cancelled_is_still_kept(
    secured: tuple[AuthorizationServer, ServerProcess], tmp_path: Path
) -> None:
    """The server rotates the refresh token as soon as it takes the request: an answer the
    cancelled call no longer waits for is the only copy of the new one."""
    auth, server = secured
    connection = await sign_in_connect(server.url, tmp_path, Browser())
    try:
        auth.expire_access_tokens()
        auth.state.refresh_gate = gate = threading.Event()
        calling = asyncio.ensure_future(connection.call_tool("echo", {"message": "x"}))
        assert await asyncio.to_thread(auth.state.refresh_arrived.wait, 20)
        calling.cancel()  # the user gave up on the call (or it timed out) while the refresh waits
        with contextlib.suppress(asyncio.CancelledError):
            await calling
        gate.set()  # only now does the server answer, having rotated the refresh token
    finally:
        await connection.close()
    assert auth.state.seen.count("POST /token refresh_token") == 1
    again = await sign_in_connect(server.url, tmp_path, None)  # a later start, nobody to ask
    try:
        assert (await again.call_tool("echo", {"message": "kept"})).text == "Echo: kept"
    finally:
        await again.close()
    assert auth.state.refusals == []
