"""`levelcode mcp login NAME` and `levelcode mcp logout NAME`: sign in to a remote server through
the browser (or, on a machine without one, a printed URL), and sign out — the tokens revoked at
the authorization server where it offers that (RFC 7009), and forgotten here in any case.

Login contacts only a server the launch gate lets start without asking (mcp/launch/gate.py) —
your own, or a repository's that you approved here — and names the authorization server before
the browser opens. What is kept
(tokens, the registered client) goes to the system keyring or a 0600 file under the state dir;
nothing of it is ever printed.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import sys
import threading
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING

from levelcode.cli.aio import run_command
from levelcode.cli.mcp.config_report import load_reported_config
from levelcode.cli.printing import fail, say, workspace_of
from levelcode.core.errors import ConfigError, McpError
from levelcode.mcp.config.specs import HttpServerSpec, ServerSpec
from levelcode.mcp.http.oauth.callback import params_from_pasted
from levelcode.mcp.http.oauth.grant import Client
from levelcode.mcp.http.oauth.metadata import canonical_resource
from levelcode.mcp.http.oauth.store import STORE_FILE, CredentialStore, store_key
from levelcode.mcp.launch.connect_options import ConnectOptions, settings_api_key
from levelcode.mcp.launch.workspace_trust import WorkspaceTrust
from levelcode.mcp.live.connection import connect
from levelcode.mcp.protocol.sign_in import DEFAULT_SIGN_IN_SECONDS, Deliver, SignIn, SignInPrompt
from levelcode.platform import paths
from levelcode.platform.settings_files import load_settings
from levelcode.ui.shown_hosts import shown_url, warning_lines

if TYPE_CHECKING:
    from levelcode.mcp.http.oauth.revocation import Revocation


class TerminalUserAgent:
    """The user at this terminal: the consent text, the browser, the URL, a pasted answer."""

    def __init__(self, *, open_browser: bool, read_pasted: bool) -> None:
        self.open_browser, self.read_pasted = open_browser, read_pasted
        self.prompts: list[SignInPrompt] = []

    async def open(self, prompt: SignInPrompt, deliver: Deliver) -> None:
        self.prompts.append(prompt)
        say(*consent_lines(prompt))
        sys.stdout.flush()
        if self.read_pasted:
            _read_pasted_answers(asyncio.get_running_loop(), deliver)
        if self.open_browser and not await asyncio.to_thread(webbrowser.open, prompt.url):
            say("No browser could be opened here; use the address above.")
        say("Waiting for the sign-in…")
        sys.stdout.flush()  # the address must reach a pipe now, not when the process ends


def consent_lines(prompt: SignInPrompt) -> list[str]:
    """Hosts in ASCII (punycode), as the browser looks them up, each warned about when it may
    imitate another name (ui/shown_hosts.py): the authorization server chose them."""
    asked = " ".join(prompt.scope) if prompt.scope else "no particular scope (the server decides)"
    what = "more permissions for" if prompt.step_up else "sign in to"
    issuer, page = shown_url(prompt.issuer), shown_url(prompt.url)
    return [
        f"LevelCode will {what} MCP server {prompt.server!r} ({prompt.resource})",
        f"  at the authorization server {issuer.url}",
        *warning_lines(issuer),
        f"  asking for: {asked}",
        "Continue only if you expect that authorization server to sign you in for this server.",
        "Open this address to sign in (your browser opens it if there is one here):",
        f"  {page.url}",
        *(warning_lines(page) if page.host != issuer.host else []),
        f"The answer comes back to {prompt.redirect_uri} on this machine. On another machine, the",
        "page it ends on may not load: then paste that page's address here and press Enter.",
    ]


def _read_pasted_answers(loop: asyncio.AbstractEventLoop, deliver: Deliver) -> None:
    """Lines from stdin on a daemon thread (it may block forever; it never keeps the process alive)."""

    def read() -> None:
        for line in sys.stdin:
            params = params_from_pasted(line)
            if params is not None:
                loop.call_soon_threadsafe(deliver, params)
                return
            loop.call_soon_threadsafe(
                say, "That is not the address of a sign-in answer; paste the whole URL."
            )

    threading.Thread(target=read, name="levelcode-pasted-sign-in", daemon=True).start()


def _login_problem(spec: ServerSpec | None, name: str, workspace: Path) -> str | None:
    if spec is None:
        return f"no MCP server named {name!r}"
    if not isinstance(spec, HttpServerSpec):
        return f"{name!r} is a stdio server: it takes its credentials from its env, not from a sign-in"
    if spec.oauth is not None and not spec.oauth.enabled:
        return f'{name!r} has "oauth": false in {spec.provenance.file}: LevelCode never signs in to it'
    if any(key.lower() == "authorization" for key, _ in spec.headers):
        return f"{name!r} sends its own Authorization header ({spec.provenance.file}); no sign-in is used"
    trust = WorkspaceTrust(workspace)
    if (blocked := trust.blocked_by_organisation(spec)) is not None:
        return f"{name!r} is {blocked}"
    if spec.disabled:
        return f"{name!r} is disabled; enable it first: levelcode mcp enable {name}"
    if not trust.may_start_unasked(spec):  # nobody is asked here
        return (
            f"{name!r} comes from {spec.provenance.file} and is not approved here, so LevelCode does "
            f"not contact it; review and approve it first: levelcode mcp trust {name}"
        )
    return None


def mcp_login(args: argparse.Namespace) -> int:
    workspace = workspace_of(args)
    settings = load_settings(workspace)
    spec = load_reported_config(workspace, settings).server(args.name)
    problem = _login_problem(spec, args.name, workspace)
    if problem is not None:
        return fail(problem, 2)
    assert isinstance(spec, HttpServerSpec)
    # The user's time in the browser is not the server's start-up: the start-up bound waits for both.
    spec = dataclasses.replace(spec, startup_timeout=DEFAULT_SIGN_IN_SECONDS + (spec.startup_timeout or 30))
    agent = TerminalUserAgent(open_browser=not args.no_browser, read_pasted=args.no_browser or _tty())
    options = ConnectOptions(
        workspace=workspace,
        provider_key_values=frozenset(settings_api_key(settings)),
        sign_in=SignIn(store_dir=paths.state_dir(), user_agent=agent, force=True),
    )

    async def main() -> int:
        try:
            connection = await connect(spec, options)
        except McpError as exc:
            return fail(f"{spec.name}: {exc}", 1)
        tools = len(connection.tools)
        await connection.close()
        return _report_login(spec, agent, tools)

    return run_command(main)


def _report_login(spec: HttpServerSpec, agent: TerminalUserAgent, tools: int) -> int:
    store = CredentialStore(paths.state_dir())
    key = store_key(spec.name, canonical_resource(spec.url))
    where = store.where_current(key)
    without_user = spec.oauth is not None and spec.oauth.grants.without_user
    if not agent.prompts and not (without_user and where is not None):
        say(f"{spec.name!r} did not ask to sign in: it works without ({tools} tools). Nothing was stored.")
        return 0
    kept = (
        "in the system keyring"
        if where == "keyring"
        else f"in {paths.state_dir() / STORE_FILE} (yours alone)"
    )
    issuer = agent.prompts[-1].issuer if agent.prompts else store.current_issuer(key)
    how = "" if agent.prompts else f" (the {spec.oauth.grants.grant.replace('_', ' ')} grant, no browser)"  # type: ignore[union-attr]
    say(f"Signed in to {spec.name!r} at {issuer}{how}: {tools} tools. Kept {kept}.")
    return 0


def mcp_logout(args: argparse.Namespace) -> int:
    """Revoke the kept tokens where the authorization server offers it (RFC 7009), then forget
    them here — whatever the revocation's outcome, which the user is told."""
    store = CredentialStore(paths.state_dir())
    keys = store.keys_for(args.name)
    if not keys:
        say(f"No sign-in is stored for {args.name!r}; nothing to forget.")
        return 0
    client = _configured_client(args)

    async def main() -> int:
        from levelcode.mcp.http.oauth.revocation import revoke_sign_in

        records = [record for key in keys if (record := store.load(key)) is not None]
        revocations = [await revoke_sign_in(record, client) for record in records]
        places = {store.where(key) for key in keys}
        for key in keys:
            store.delete(key)
        return _report_logout(args.name, revocations, places)

    return run_command(main)


def _report_logout(name: str, revocations: list[Revocation], places: set[str | None]) -> int:
    from levelcode.mcp.http.oauth.revocation import FAILED, REVOKED

    where = " and ".join(
        sorted("the system keyring" if p == "keyring" else "the sign-in file" for p in places)
    )
    say(f"Signed out of {name!r}: its tokens and registered client are gone from {where}.")
    for revocation in revocations:
        if revocation.outcome == REVOKED:
            say(f"The authorization server {revocation.issuer} revoked them (refresh and access token).")
        elif revocation.outcome == FAILED:
            say(
                f"levelcode: the authorization server {revocation.issuer} did not revoke them: "
                f"{revocation.reason}. They were removed here all the same; they stay valid there until "
                "they expire, unless you revoke LevelCode's access in that server's account settings.",
                err=True,
            )
        else:
            say(
                f"The authorization server {revocation.issuer} offers no revocation: it may still list "
                "LevelCode as allowed; revoke it there to end that too."
            )
    return 0


def _configured_client(args: argparse.Namespace) -> Client | None:
    """The client the user's own entry for the server names (a pre-registered clientId and its
    secret), so the revocation authenticates as the sign-in did; None when there is none."""
    from levelcode.mcp.config.environment import NOTHING_WITHHELD
    from levelcode.mcp.config.files import load_mcp_config
    from levelcode.mcp.http.oauth.entry_secrets import oauth_secrets

    try:
        workspace = workspace_of(args)
        spec = load_mcp_config(workspace, load_settings(workspace)).server(args.name)
        if not isinstance(spec, HttpServerSpec) or spec.oauth is None or not spec.provenance.own:
            return None
        secrets = oauth_secrets(
            spec.oauth, os.environ, server=spec.name, tier=spec.provenance.tier, withheld=NOTHING_WITHHELD
        )
    except (ConfigError, McpError):
        return None
    if not spec.oauth.client_id:
        return None
    return Client(spec.oauth.client_id, secrets.client_secret, spec.oauth.grants.client_auth)


def _tty() -> bool:
    return sys.stdin.isatty()
