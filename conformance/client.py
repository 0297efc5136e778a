"""The entry point the official MCP conformance suite runs as its client under test:

    conformance client --command "python conformance/client.py" --scenario NAME

The suite appends the scenario server's URL and sets MCP_CONFORMANCE_SCENARIO (and, for some
scenarios, MCP_CONFORMANCE_CONTEXT; with --spec-version, MCP_CONFORMANCE_PROTOCOL_VERSION). This
drives LevelCode's own connection code (levelcode/mcp/live/connection.py and levelcode/mcp/http/):
connect and negotiate, list tools, call them, answer what the server asks. Exit status 0 when every
step worked.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx2  # noqa: E402

from levelcode.core.errors import McpError  # noqa: E402
from levelcode.mcp.config.oauth_entry import OAuthEntry, parse_oauth_entry  # noqa: E402
from levelcode.mcp.config.specs import HttpServerSpec, Provenance  # noqa: E402
from levelcode.mcp.launch.connect_options import ConnectOptions  # noqa: E402
from levelcode.mcp.live.connection import McpConnection, connect  # noqa: E402
from levelcode.mcp.protocol.handshake import Era  # noqa: E402
from levelcode.mcp.protocol.session import (  # noqa: E402
    DEFAULT_HANDLERS,
    ClientFeatures,
    ServerRequestHandler,
)
from levelcode.mcp.protocol.sign_in import Deliver, SignIn, SignInPrompt  # noqa: E402

METHOD_NOT_FOUND = -32601
# The client ID metadata document the suite expects a client to name (it never fetches it).
CONFORMANCE_CLIENT_METADATA = "https://conformance-test.local/client-metadata.json"
# Scenarios that check only what connecting and listing send; their tools are not meant to be called.
LIST_ONLY = frozenset({"initialize", "request-metadata", "json-schema-ref-no-deref"})
CAPABILITIES: Mapping[str, object] = {"elicitation": {}}


async def accept_defaults(params: Mapping[str, object]) -> Mapping[str, object]:
    """Elicitation accepted with the schema's defaults (what a user pressing Enter would send)."""
    schema = params.get("requestedSchema")
    properties = schema.get("properties", {}) if isinstance(schema, Mapping) else {}
    content = {
        str(name): prop["default"]
        for name, prop in properties.items()
        if isinstance(prop, Mapping) and "default" in prop
    }
    return {"action": "accept", "content": content}


HANDLERS: Mapping[str, ServerRequestHandler] = {**DEFAULT_HANDLERS, "elicitation/create": accept_defaults}


class HeadlessBrowser:
    """The user in the browser, for the suite's authorization servers (which approve at once):
    open the authorization URL and follow its redirect to LevelCode's own localhost callback."""

    async def open(self, prompt: SignInPrompt, deliver: Deliver) -> None:
        print(f"sign in to {prompt.server} at {prompt.issuer}; scope: {' '.join(prompt.scope or ()) or '-'}")
        async with httpx2.AsyncClient(follow_redirects=False, timeout=10) as browser:
            answer = await browser.get(prompt.url)
            location = answer.headers.get("location")
            if location is None:
                raise RuntimeError(f"the authorization endpoint answered HTTP {answer.status_code}")
            await browser.get(location)  # lands on the callback listener, which takes the answer


def oauth_entry(scenario: str, context: Mapping[str, object], workdir: Path) -> OAuthEntry:
    """The `oauth` entry a user would write for the scenario's server, parsed the way settings are:
    secrets as ${VAR} references to this process's environment, keys and tokens as files."""
    written: dict[str, object] = {"clientMetadataUrl": CONFORMANCE_CLIENT_METADATA}
    if isinstance(context.get("client_id"), str):
        written["clientId"] = context["client_id"]
    if isinstance(context.get("client_secret"), str):
        os.environ["CONFORMANCE_CLIENT_SECRET"] = str(context["client_secret"])
        written["clientSecret"] = "${CONFORMANCE_CLIENT_SECRET}"
    written.update(_grant_keys(scenario, context, workdir))
    problems: list[str] = []
    entry = parse_oauth_entry(written, lambda key, why: problems.append(f"{key}: {why}"))
    if problems or entry is None:
        raise SystemExit(f"the oauth entry for {scenario} is not valid: {problems}")
    return entry


def _grant_keys(scenario: str, context: Mapping[str, object], workdir: Path) -> dict[str, object]:
    """What the extension scenarios need: a grant without a user, and where its secrets are."""
    if scenario == "auth/client-credentials-basic":
        return {"grant": "client_credentials", "clientAuth": "client_secret_basic"}
    if isinstance(context.get("private_key_pem"), str):  # client credentials with private_key_jwt
        key = _private_file(workdir / "client-key.pem", str(context["private_key_pem"]))
        return {"grant": "client_credentials", "clientAuth": "private_key_jwt", "privateKeyFile": key}
    if isinstance(context.get("valid_jwt"), str):  # workload identity federation
        token = _private_file(workdir / "workload-token", str(context["valid_jwt"]))
        return {"grant": "workload_identity", "workloadTokenFile": token}
    if isinstance(context.get("idp_id_token"), str):  # enterprise-managed authorization
        os.environ["CONFORMANCE_ID_TOKEN"] = str(context["idp_id_token"])
        assertion = {
            "tokenEndpoint": context.get("idp_token_endpoint"),
            "idToken": "${CONFORMANCE_ID_TOKEN}",
            "clientId": context.get("idp_client_id"),
        }
        return {"grant": "identity_assertion", "identityAssertion": assertion}
    return {}  # DPoP needs no key: the server's challenge asks for it


def _private_file(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)
    return str(path)


def era_hint() -> Era | None:
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION")
    if not version:
        return None
    return "modern" if version >= "2026-07-28" else "legacy"


def scenario_context() -> Mapping[str, object]:
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    return context if isinstance(context, Mapping) else {}


def planned_calls(
    scenario: str, tools: tuple[Mapping[str, object], ...]
) -> list[tuple[str, dict[str, object]]]:
    context = scenario_context()
    if isinstance(context, Mapping) and isinstance(context.get("toolCalls"), list):
        return [(str(c["name"]), dict(c.get("arguments") or {})) for c in context["toolCalls"]]
    if scenario in LIST_ONLY:
        return []
    by_name = {str(tool.get("name")): tool for tool in tools}
    if scenario == "json-schema-2020-12-preservation" and "json_schema_echo" in by_name:
        focal = by_name.get("json_schema_2020_12_tool", {})
        return [("json_schema_echo", {"schema": focal.get("inputSchema")})]
    return [(name, example_arguments(tool.get("inputSchema"))) for name, tool in by_name.items()]


def example_arguments(schema: object) -> dict[str, object]:
    """A value for each required argument, from its default or its type."""
    if not isinstance(schema, Mapping):
        return {}
    properties = schema.get("properties")
    required = schema.get("required")
    if not isinstance(properties, Mapping) or not isinstance(required, list):
        return {}
    samples: dict[str, object] = {"number": 5, "integer": 3, "string": "hello", "boolean": True}
    arguments: dict[str, object] = {}
    for name in required:
        prop = properties.get(name)
        if isinstance(prop, Mapping):
            arguments[str(name)] = prop.get("default", samples.get(str(prop.get("type")), "hello"))
    return arguments


async def exercise_other_methods(connection: McpConnection) -> None:
    """Resources and prompts, so header scenarios see every method (LevelCode lists them later)."""
    for method, params in (("resources/list", {}), ("prompts/list", {})):
        try:
            result = await connection.session.request(method, params, timeout=10)
        except McpError:
            continue
        key = "resources" if method == "resources/list" else "prompts"
        for item in (result.get(key) or [])[:1]:
            follow = (
                ("resources/read", {"uri": item.get("uri")})
                if key == "resources"
                else ("prompts/get", {"name": item.get("name")})
            )
            with contextlib.suppress(McpError):
                await connection.session.request(follow[0], follow[1], timeout=10)


async def run(url: str, scenario: str) -> int:
    oauth = oauth_entry(scenario, scenario_context(), Path.cwd())
    spec = HttpServerSpec("conformance", url, Provenance("user", "conformance"), oauth=oauth)
    options = ConnectOptions(
        workspace=Path.cwd(),
        startup_timeout=20,
        call_timeout=20,
        features=ClientFeatures(CAPABILITIES, HANDLERS),
        sign_in=SignIn(store_dir=None, user_agent=HeadlessBrowser(), wait_seconds=15),
    )
    try:
        connection = await connect(spec, options, hint=era_hint())
    except McpError as exc:
        print(f"connect failed: {exc}", file=sys.stderr)
        return 1
    failures = 0
    try:
        print(f"connected: {connection.info.era} {connection.info.protocol}; {len(connection.tools)} tools")
        for name, arguments in planned_calls(scenario, connection.tools):
            rendered = await connection.call_tool(name, arguments)
            print(f"{name}: {rendered.text[:300]}")
            failures += rendered.is_error
        if scenario == "http-standard-headers":
            await exercise_other_methods(connection)
    finally:
        await connection.close()
    return 1 if failures else 0


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: client.py SERVER_URL (run by the conformance suite)", file=sys.stderr)
        return 2
    return asyncio.run(run(sys.argv[-1], os.environ.get("MCP_CONFORMANCE_SCENARIO", "")))


if __name__ == "__main__":
    sys.exit(main())
