"""A remote server signed in to with the client-credentials grant from the user's settings: no
browser, no `mcp login` needed, headless from the first call. Against the official SDK's server as
an OAuth resource and the strict authorization server, both on 127.0.0.1; the secret is a ${VAR}
in the settings and reaches only the token endpoint (client_secret_basic). Load-bearing direction:
the call works with nobody to ask, no authorization page is ever requested, the secret and the
tokens appear in no output and in no file but the 0600 sign-in file, and a wrong secret is a
clear error that is not retried."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from levelcode.mcp.http.oauth.store import STORE_FILE
from tests.fakes.oauth_server import AuthorizationServer, authorization_server
from tests.support.cli import LEVELCODE, cli_env, write_settings
from tests.support.http_servers import ServerProcess, free_port, running, sdk_server

SECRET = "cc-secret-value-1234"


@pytest.fixture
def machine(isolated_home: Path) -> Iterator[tuple[AuthorizationServer, ServerProcess]]:
    port = free_port()
    with authorization_server(resource=f"http://127.0.0.1:{port}/mcp") as auth:
        auth.state.machine_clients["ci-bot"] = SECRET
        server = sdk_server("--oauth", auth.issuer)
        server.port, server.argv[2] = port, str(port)
        with running(server):
            oauth = {"grant": "client_credentials", "clientId": "ci-bot", "clientSecret": "${BOT_SECRET}"}
            write_settings(isolated_home, {"mcpServers": {"bot": {"url": server.url, "oauth": oauth}}})
            yield auth, server


def _cli(home: Path, *args: str, secret: str = SECRET) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LEVELCODE), *args],
        capture_output=True,
        text=True,
        env=cli_env(home, BOT_SECRET=secret),
        timeout=60,
        check=False,
    )


def test_a_call_signs_in_with_client_credentials_headless(
    machine: tuple[AuthorizationServer, ServerProcess], isolated_home: Path
) -> None:
    auth, _server = machine
    call = _cli(isolated_home, "mcp", "call", "bot", "echo", '{"message": "no browser"}')
    assert (call.returncode, call.stdout) == (0, "Echo: no browser\n"), call.stderr
    assert "POST /token client_credentials" in auth.state.seen
    assert "GET /authorize" not in auth.state.seen
    assert auth.state.refusals == []
    again = _cli(isolated_home, "mcp", "call", "bot", "echo", '{"message": "kept"}')
    assert again.returncode == 0, again.stderr
    assert auth.state.seen.count("POST /token client_credentials") == 1  # the kept token was used
    login = _cli(isolated_home, "mcp", "login", "bot")
    assert "(the client credentials grant, no browser)" in login.stdout, login.stdout + login.stderr
    secrets = [SECRET, *auth.state.access]
    for done in (call, again, login):
        assert not any(s in done.stdout + done.stderr for s in secrets)
    holders = {
        p.name
        for p in isolated_home.rglob("*")
        if p.is_file() and any(s in p.read_text(errors="replace") for s in secrets)
    }
    assert holders <= {STORE_FILE}


def test_a_refused_secret_is_a_clear_error_and_is_not_retried(
    machine: tuple[AuthorizationServer, ServerProcess], isolated_home: Path
) -> None:
    auth, _server = machine
    call = _cli(isolated_home, "mcp", "call", "bot", "echo", '{"message": "x"}', secret="wrong")
    assert call.returncode != 0
    assert "client credentials grant failed" in call.stderr
    assert "invalid_client" in call.stderr
    assert auth.state.seen.count("POST /token client_credentials") == 1
    assert "wrong" not in call.stderr.replace("wrong secret", "")
