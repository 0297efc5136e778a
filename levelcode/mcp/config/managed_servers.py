"""What the organisation's policy (policy/managed_policy.py) decides for each configured server:
whether it may start (`allowedMcpServers`, `deniedMcpServers`, `repositoryMcpServers`,
`mcpRegistryOnly`), whether it must run in the sandbox (`mcpSandbox`), whether sampling is off,
and the servers it requires.

Pure: specs and the policy in, specs out — each carrying its `OrgRule` (config/specs.py), which the
launch gate, the spawn path, the sampling handler and every view read; never reads a file.
Load-bearing direction: a server the policy does not let through must come out `blocked`,
whatever tier wrote it and under whatever name. How entries match:

- `name`: the server's name; `*` and `?` are wildcards.
- `command`: the command line as `levelcode mcp list` shows it (shell-quoted); `*` matches any
  text, spaces included. A deny entry also matches with the program's file name in place of its
  path (`/usr/bin/npx` is `npx`); an allow entry matches the command only as written, so a
  program of the same name elsewhere is not let through. A command can be written in more ways
  than a pattern foresees (a shell, a wrapper): only an allow-list holds against all of them.
- `url`: `scheme://host[:port][/path]`, host as in a hosts list (`*.example.com` is the hosts
  below it), compared with the server's URL parsed (case, a trailing dot, user info and the
  port as written do not matter); a path may hold `*`; without a port, any port.
- `fingerprint`: the launch fingerprint of the entry (`levelcode mcp get NAME` prints it): exactly
  this command, arguments, env and cwd (or URL and headers) — the strongest allow entry.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Sequence
from fnmatch import fnmatchcase
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from levelcode.core.errors import ConfigProblem
from levelcode.mcp.config.sandbox_entry import SandboxRequest
from levelcode.mcp.config.server_entry import parse_server_map
from levelcode.mcp.config.specs import (
    HttpServerSpec,
    OrgRule,
    Provenance,
    ServerSpec,
    StdioServerSpec,
    entry_fingerprint,
)
from levelcode.mcp.config.tiers import SERVERS_KEY, McpConfig, TierConfig
from levelcode.policy.managed_policy import ManagedPolicy, ServerMatch
from levelcode.policy.network_hosts import default_port, parse_host_entry

PURE = True

REQUIRED_KEY = "requiredMcpServers"


def required_tier(policy: ManagedPolicy) -> TierConfig:
    """The servers the policy requires, parsed as any entry is, in the `organisation` tier."""
    if not policy.required:
        return TierConfig()
    provenance = Provenance("organisation", policy.file)
    servers, problems = parse_server_map(policy.required, provenance=provenance, key=REQUIRED_KEY)
    return TierConfig(tuple(servers), {}, tuple(problems))


def govern_config(config: McpConfig, policy: ManagedPolicy) -> McpConfig:
    """The merged configuration under the policy: every server governed, and each server entry
    whose network the policy narrowed reported (the entry's own problem, naming the policy)."""
    governed = govern(config.servers, policy)
    narrowed = [
        ConfigProblem(
            before.provenance.file,
            f"{SERVERS_KEY}.{before.name}.sandbox.network",
            policy.refusal("narrowed", "only the allowed network applies"),
        )
        for before, after in zip(config.servers, governed, strict=True)
        if isinstance(before, StdioServerSpec)
        and isinstance(after, StdioServerSpec)
        and before.sandbox != after.sandbox
    ]
    return dataclasses.replace(config, servers=governed, problems=(*config.problems, *narrowed))


def govern(specs: Sequence[ServerSpec], policy: ManagedPolicy) -> tuple[ServerSpec, ...]:
    """Every spec with what the policy decided for it (unchanged where it decided nothing)."""
    if not policy.active:
        return tuple(specs)
    return tuple(_governed(spec, policy) for spec in specs)


def _governed(spec: ServerSpec, policy: ManagedPolicy) -> ServerSpec:
    governed = spec
    if isinstance(spec, StdioServerSpec) and spec.sandbox is not None:
        governed = dataclasses.replace(spec, sandbox=_network_within(spec, policy))
    rule = org_rule(spec, policy)
    if rule is None:
        return governed
    governed = dataclasses.replace(governed, organisation=rule)
    if rule.sampling_off and spec.client.sampling:
        governed = dataclasses.replace(governed, client=dataclasses.replace(spec.client, sampling=False))
    return governed


def org_rule(spec: ServerSpec, policy: ManagedPolicy) -> OrgRule | None:
    """What the policy decides for `spec`; None when it decides nothing."""
    sandboxed = isinstance(spec, StdioServerSpec) and (
        policy.sandbox == "all" or (policy.sandbox == "repository" and not spec.provenance.trusted)
    )
    rule = OrgRule(
        blocked=why_blocked(spec, policy),
        sandbox=policy.decided("the sandbox is required") if sandboxed else None,
        sampling_off=None if policy.sampling else policy.decided("sampling is turned off"),
        required=spec.provenance.tier == "organisation",
    )
    return None if rule == OrgRule() else rule


def why_blocked(spec: ServerSpec, policy: ManagedPolicy) -> str | None:
    """`blocked by your organisation's policy (FILE): it matches deniedMcpServers[0] (…)`, or None."""
    reason = _block_reason(spec, policy)
    return policy.refusal("blocked", reason) if reason is not None else None


def _block_reason(spec: ServerSpec, policy: ManagedPolicy) -> str | None:
    if policy.closed:
        return "the policy file could not be used, so no MCP server starts"
    if spec.provenance.tier == "organisation":
        return None  # the policy's own servers
    if spec.provenance.tier == "workspace" and not policy.repository_servers:
        return "servers from a repository's files are turned off (repositoryMcpServers: false)"
    denied = next((match for match in policy.denied if server_matches(match, spec, deny=True)), None)
    if denied is not None:
        return f"it matches {denied.describe()}"
    if policy.registry_only and (elsewhere := _not_from_registry(spec, policy)) is not None:
        return elsewhere
    if policy.allowed is None or any(server_matches(match, spec) for match in policy.allowed):
        return None
    if not policy.allowed:
        return "allowedMcpServers is empty: no MCP server may run"
    return "it matches no entry of allowedMcpServers"


def _not_from_registry(spec: ServerSpec, policy: ManagedPolicy) -> str | None:
    """Why a server is not one added from the policy's registry (`mcpRegistryOnly`); None if it is.
    Read from the entry's `registry` key: what it says, not a fresh question to the registry."""
    origin = spec.registry
    if origin is None:
        return (
            f"only servers added from {policy.registry} may run (mcpRegistryOnly); find one with "
            "`levelcode mcp search TEXT` and add it with `levelcode mcp add NAME --from-registry`"
        )
    if origin.url != policy.registry:
        return f"it was added from {origin.url}; only those from {policy.registry} may run (mcpRegistryOnly)"
    return None


def server_matches(match: ServerMatch, spec: ServerSpec, *, deny: bool = False) -> bool:
    """Whether every key of `match` matches `spec` (`deny`: the looser command match, see above)."""
    checks = (
        match.name is None or fnmatchcase(spec.name, match.name),
        match.command is None or _command_matches(match.command, spec, deny=deny),
        match.url is None or (isinstance(spec, HttpServerSpec) and url_matches(match.url, spec.url)),
        match.fingerprint is None or entry_fingerprint(spec) == match.fingerprint,
    )
    return all(checks)


def _command_matches(pattern: str, spec: ServerSpec, *, deny: bool) -> bool:
    if not isinstance(spec, StdioServerSpec):
        return False
    lines = [shlex.join((spec.command, *spec.args))]
    if deny:
        lines.append(shlex.join((PurePosixPath(spec.command).name, *spec.args)))
    return any(fnmatchcase(line, pattern) for line in lines)


def url_matches(pattern: str, url: str) -> bool:
    """Whether `url` lies within the URL pattern (see the module's docstring)."""
    scheme, _, rest = pattern.partition("://")
    host_text, slash, path = rest.partition("/")
    try:
        limit = parse_host_entry(host_text)
        parts = urlsplit(url)
        port = parts.port or default_port(parts.scheme)
    except ValueError:
        return False
    if parts.scheme.lower() != scheme.lower() or not limit.matches_name(parts.hostname or ""):
        return False
    if limit.port is not None and port != limit.port:  # a pattern without a port: any port
        return False
    return not slash or fnmatchcase(parts.path or "/", "/" + path)


def _network_within(spec: StdioServerSpec, policy: ManagedPolicy) -> SandboxRequest:
    """The entry's sandbox request with only the network the policy allows."""
    request = spec.sandbox
    assert request is not None
    hosts = tuple(host for host in request.hosts if policy.host_allowed(host))
    network = request.network and policy.whole_network
    return dataclasses.replace(request, network=network, hosts=hosts)
