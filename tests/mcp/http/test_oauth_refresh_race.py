"""Two LevelCode processes whose kept access token lapsed, racing to refresh it against a strict
authorization server on 127.0.0.1 that rotates refresh tokens (a used one is refused) and answers
refreshes slowly, so that both processes are after the lock at once. Load-bearing direction:
exactly one refresh reaches the server, both processes' calls succeed with the new token, and
the rotated refresh token is what is kept — without the lock the second refresh presents the
used refresh token and is refused (invalid_grant)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest

from levelcode.core import paths
from levelcode.mcp.http.oauth.store import STORE_FILE
from tests.fakes.oauth_server import AuthorizationServer, authorization_server
from tests.mcp.http.test_oauth_real_servers import sign_in_connect
from tests.support.browser import Browser
from tests.support.cli import LEVELCODE, cli_env, write_settings
from tests.support.http_servers import ServerProcess, free_port, running, sdk_server


@pytest.fixture
def secured(isolated_home: object) -> Iterator[tuple[AuthorizationServer, ServerProcess]]:
    port = free_port()
    with authorization_server(resource=f"http://127.0.0.1:{port}/mcp") as auth:
        server = sdk_server("--oauth", auth.issuer)
        server.port, server.argv[2] = port, str(port)
        with running(server):
            yield auth, server


def kept_tokens() -> dict[str, object]:
    servers = json.loads((paths.state_dir() / STORE_FILE).read_text())["servers"]
    [record] = [entry["record"] for entry in servers.values() if "record" in entry]
    return dict(record["tokens"])


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

    env = cli_env(paths.state_dir().parent)
    racers = [
        subprocess.Popen(
            [str(LEVELCODE), "mcp", "call", "secured", "echo", json.dumps({"message": word})],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for word in ("one", "two")
    ]
    outputs = [racer.communicate(timeout=90) for racer in racers]

    assert [(r.returncode, out) for r, (out, _err) in zip(racers, outputs, strict=True)] == [
        (0, "Echo: one\n"),
        (0, "Echo: two\n"),
    ], outputs
    assert auth.state.seen.count("POST /token refresh_token") == 1, auth.state.seen
    assert auth.state.refusals == []
    kept = kept_tokens()
    assert kept["refresh_token"] != issued_refresh
    assert kept["refresh_token"] in auth.state.refresh  # the rotated one, still good
    assert kept["access_token"] in auth.state.access
