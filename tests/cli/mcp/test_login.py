"""`levelcode mcp login`/`logout` and what a remote server that needs a sign-in looks like from the
CLI, against the official SDK's server as an OAuth protected resource and a strict authorization
server, both on 127.0.0.1. Before a sign-in, `mcp list` says "needs login" and `mcp call` names the
exact login command; `mcp login --no-browser` names the authorization server, prints the address,
and finishes once a browser elsewhere signs in (or its end address is pasted back); afterwards
list and call work; `mcp logout` forgets it. No token appears in any output or file but the 0600
sign-in file."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from levelcode.mcp.http.oauth.store import STORE_FILE
from tests.fakes.oauth_server import AuthorizationServer, authorization_server
from tests.fakes.scripted_server import Reply
from tests.providers.support import OPENAI
from tests.support.browser import login_elsewhere
from tests.support.cli import LEVELCODE, cli_env, provider_env, provider_flags, write_settings
from tests.support.http_servers import ServerProcess, free_port, running, sdk_server
from tests.support.secret_service import secret_service


@pytest.fixture
def secured(isolated_home: Path) -> Iterator[tuple[AuthorizationServer, ServerProcess]]:
    port = free_port()
    with authorization_server(resource=f"http://127.0.0.1:{port}/mcp") as auth:
        server = sdk_server("--oauth", auth.issuer)
        server.port, server.argv[2] = port, str(port)
        with running(server):
            write_settings(isolated_home, {"mcpServers": {"secured": {"url": server.url}}})
            yield auth, server


def _cli(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LEVELCODE), *args],
        capture_output=True,
        text=True,
        env=cli_env(home, **env),
        timeout=60,
        check=False,
    )


def _login(home: Path, *, paste: bool, **env: str) -> tuple[int, str]:
    return login_elsewhere(home, "secured", paste=paste, **env)


def _tokens(auth: AuthorizationServer) -> list[str]:
    return [*auth.state.access, *auth.state.refresh]


def test_needs_login_then_login_list_call_logout(
    secured: tuple[AuthorizationServer, ServerProcess], isolated_home: Path
) -> None:
    auth, _server = secured
    before = _cli(isolated_home, "mcp", "list", "-v")
    before_json = _cli(isolated_home, "mcp", "list", "--json")
    call_before = _cli(isolated_home, "mcp", "call", "secured", "echo", '{"message": "hi"}')
    assert "secured · needs login" in before.stdout, before.stdout + before.stderr
    assert (before.returncode, before_json.returncode) == (3, 3)  # `mcp list`: needs a sign-in
    assert "sign in with: levelcode mcp login secured" in before.stdout
    listed = {s["name"]: s for s in json.loads(before_json.stdout)["servers"]}
    assert (listed["secured"]["phase"], listed["secured"]["state"]) == ("needs_login", "needs login")
    assert call_before.returncode == 1
    assert "levelcode mcp login secured" in call_before.stderr

    code, said = _login(isolated_home, paste=False)
    assert code == 0, said
    assert f"at the authorization server {auth.issuer}" in said
    assert said.index(auth.issuer) < said.index("/authorize?")  # named before the address
    assert f"Signed in to 'secured' at {auth.issuer}" in said
    assert auth.state.refusals == []

    after = _cli(isolated_home, "mcp", "list", "--json")
    call = _cli(isolated_home, "mcp", "call", "secured", "echo", '{"message": "signed in"}')
    assert {s["name"]: s for s in json.loads(after.stdout)["servers"]}["secured"]["state"] == "running"
    assert after.returncode == 0
    assert (call.returncode, call.stdout) == (0, "Echo: signed in\n"), call.stderr

    tokens = _tokens(auth)
    for done in (before, before_json, call_before, after, call):
        assert not any(t in done.stdout + done.stderr for t in tokens)
    assert not any(t in said for t in tokens)
    holders = {
        p.name
        for p in isolated_home.rglob("*")
        if p.is_file() and any(t in p.read_text(errors="replace") for t in tokens)
    }
    assert holders <= {STORE_FILE}

    kept_refresh, kept_access = set(auth.state.refresh), set(auth.state.access)
    out = _cli(isolated_home, "mcp", "logout", "secured")
    assert "Signed out of 'secured'" in out.stdout
    assert f"The authorization server {auth.issuer} revoked them" in out.stdout
    kinds = [line.split()[0] for line in auth.state.revoked]
    assert kinds == ["refresh_token", "access_token"]  # the refresh token first (RFC 7009 §2.1)
    assert {line.split()[1] for line in auth.state.revoked} <= kept_refresh | kept_access
    assert not any(t in out.stdout + out.stderr for t in tokens)
    again = _cli(isolated_home, "mcp", "list", "-v")
    assert "secured · needs login" in again.stdout


def test_logout_forgets_the_sign_in_even_when_revocation_fails_and_says_so(
    secured: tuple[AuthorizationServer, ServerProcess], isolated_home: Path
) -> None:
    auth, _server = secured
    code, said = _login(isolated_home, paste=False)
    assert code == 0, said
    auth.state.revocation_down = True
    out = _cli(isolated_home, "mcp", "logout", "secured")
    assert out.returncode == 0
    assert "Signed out of 'secured'" in out.stdout
    assert f"the authorization server {auth.issuer} did not revoke them" in out.stderr
    assert "HTTP 503" in out.stderr
    assert auth.state.revoked == []
    assert "secured · needs login" in _cli(isolated_home, "mcp", "list", "-v").stdout


def test_a_headless_run_that_meets_a_401_says_which_login_to_run(
    secured: tuple[AuthorizationServer, ServerProcess], isolated_home: Path, tmp_path: Path
) -> None:
    auth, _server = secured
    with OPENAI.fake([Reply(text="done")]) as provider:
        ran = subprocess.run(
            [
                str(LEVELCODE),
                "run",
                "-C",
                str(tmp_path),
                *provider_flags("openai", provider.base_url, OPENAI.model),
                "--json",
                "hi",
            ],
            capture_output=True,
            text=True,
            env=provider_env(isolated_home, "openai"),
            timeout=120,
            check=False,
        )
    assert ran.returncode == 0, ran.stderr
    notices = [json.loads(line) for line in ran.stdout.splitlines() if "secured" in line]
    assert any("Run `levelcode mcp login secured` in a terminal" in json.dumps(n) for n in notices), (
        ran.stdout
    )
    assert any(auth.issuer in json.dumps(n) for n in notices)
    assert "GET /authorize" not in auth.state.seen


def test_login_by_pasting_the_address_the_sign_in_ended_on(
    secured: tuple[AuthorizationServer, ServerProcess], isolated_home: Path
) -> None:
    code, said = _login(isolated_home, paste=True)
    assert code == 0, said
    assert "Signed in to 'secured'" in said


def test_login_never_contacts_an_unapproved_repository_server(isolated_home: Path, tmp_path: Path) -> None:
    with authorization_server() as watcher:  # stands where the repository's server would be
        (tmp_path / ".mcp.json").write_text(
            json.dumps({"mcpServers": {"repo": {"url": f"{watcher.issuer}/mcp"}}})
        )
        done = _cli(isolated_home, "-C", str(tmp_path), "mcp", "login", "repo")
        assert done.returncode == 2
        assert "levelcode mcp trust repo" in done.stderr
        assert watcher.state.seen == []


def test_login_call_logout_on_a_real_system_keyring(
    secured: tuple[AuthorizationServer, ServerProcess], isolated_home: Path, tmp_path: Path
) -> None:
    """GNOME Keyring's Secret Service on a private D-Bus session: the sign-in is kept there, a
    second process finds it there, no token is in any file, and logout removes the item."""
    auth, _server = secured
    with secret_service(tmp_path / "keyring-home") as keyring_service:
        code, said = _login(isolated_home, paste=False, **keyring_service.env)
        assert code == 0, said
        assert "Kept in the system keyring" in said
        call = _cli(
            isolated_home, "mcp", "call", "secured", "echo", '{"message": "kept"}', **keyring_service.env
        )
        assert (call.returncode, call.stdout) == (0, "Echo: kept\n"), call.stderr
        tokens = _tokens(auth)
        assert not any(
            t in p.read_text(errors="replace")
            for p in isolated_home.rglob("*")
            if p.is_file()
            for t in tokens
        )
        out = _cli(isolated_home, "mcp", "logout", "secured", **keyring_service.env)
        assert "gone from the system keyring" in out.stdout
        assert "revoked them" in out.stdout
        again = _cli(isolated_home, "mcp", "list", "-v", **keyring_service.env)
        assert "secured · needs login" in again.stdout
