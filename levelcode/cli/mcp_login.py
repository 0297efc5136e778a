"""`levelcode mcp login NAME` and `levelcode mcp logout NAME`: sign in to a remote server through
the browser (or, on a machine without one, a printed URL), and forget a sign-in.

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
import sys
import threading
import webbrowser
from pathlib import Path

from levelcode.cli.aio import run_command
from levelcode.cli.config_report import load_reported_config
from levelcode.cli.printing import fail, say, workspace_of
from levelcode.core import paths
from levelcode.core.errors import McpError
from levelcode.core.settings import load_settings
from levelcode.mcp.config.specs import HttpServerSpec, ServerSpec
from levelcode.mcp.connect_options import ConnectOptions
from levelcode.mcp.connection import connect
from levelcode.mcp.http.oauth.callback import params_from_pasted
from levelcode.mcp.http.oauth.metadata import canonical_resource
from levelcode.mcp.http.oauth.store import STORE_FILE, CredentialStore, store_key
from levelcode.mcp.launch.gate import LaunchGate, blocked_by_organisation
from levelcode.mcp.protocol.sign_in import DEFAULT_SIGN_IN_SECONDS, Deliver, SignIn, SignInPrompt
from levelcode.mcp.runtime import settings_api_key
from levelcode.mcp.trust_store import TrustStore
from levelcode.ui.shown_hosts import shown_url, warning_lines


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
    if (blocked := blocked_by_organisation(spec)) is not None:
        return f"{name!r} is {blocked}"
    if spec.disabled:
        return f"{name!r} is disabled; enable it first: levelcode mcp enable {name}"
    if not LaunchGate(workspace, TrustStore()).may_start_unasked(spec):  # nobody is asked here
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
    if not agent.prompts:
        say(f"{spec.name!r} did not ask to sign in: it works without ({tools} tools). Nothing was stored.")
        return 0
    store = CredentialStore(paths.state_dir())
    key = store_key(spec.name, canonical_resource(spec.url))
    where = store.where(key)
    kept = (
        "in the system keyring"
        if where == "keyring"
        else f"in {paths.state_dir() / STORE_FILE} (yours alone)"
    )
    say(f"Signed in to {spec.name!r} at {agent.prompts[-1].issuer}: {tools} tools. Kept {kept}.")
    return 0


def mcp_logout(args: argparse.Namespace) -> int:
    store = CredentialStore(paths.state_dir())
    keys = store.keys_for(args.name)
    if not keys:
        say(f"No sign-in is stored for {args.name!r}; nothing to forget.")
        return 0
    places = {store.where(key) for key in keys}
    for key in keys:
        store.delete(key)
    where = " and ".join(
        sorted("the system keyring" if p == "keyring" else "the sign-in file" for p in places)
    )
    say(
        f"Signed out of {args.name!r}: its tokens and registered client are gone from {where}.",
        "The authorization server may still list LevelCode as allowed; revoke it there to end that too.",
    )
    return 0


def _tty() -> bool:
    return sys.stdin.isatty()
