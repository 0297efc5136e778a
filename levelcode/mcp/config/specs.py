"""What one configured MCP server is, as plain data: its spec (stdio or HTTP) with where it was
written (`Provenance`), what an organisation's policy decided for it (`OrgRule`, riding on it outside
what the launch fingerprint covers), and the canonical text that fingerprint hashes.

Pure: types and one encoding; never parses a document (server_entry.py, tiers.py do), never reads
a file, never spawns.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Literal

from levelcode.mcp.config.client_entry import DEFAULT_CLIENT_FEATURES, ClientFeatureSettings
from levelcode.mcp.config.oauth_entry import OAuthEntry
from levelcode.mcp.config.registry_entry import RegistryOrigin
from levelcode.mcp.config.sandbox_entry import SANDBOX_KEY, SandboxRequest
from levelcode.mcp.config.timeouts_entry import CallTimeouts

PURE = True

# "local": the user's own servers for one workspace only (`mcp add -s local`), kept outside it.
Tier = Literal["user", "local", "workspace", "organisation"]


@dataclass(frozen=True)
class Provenance:
    tier: Tier
    file: str

    def describe(self) -> str:
        return f"{self.tier} · {self.file}"

    @property
    def trusted(self) -> bool:
        """Written by the user or their organisation, not by a repository: starts without asking."""
        return self.tier != "workspace"

    @property
    def own(self) -> bool:
        """Written by the user: their settings, or their servers for this workspace (local)."""
        return self.tier in ("user", "local")


@dataclass(frozen=True)
class OrgRule:
    """What the organisation's policy decided for one server (config/managed_servers.py); `said`:
    the one wording of each decision, naming the policy's file."""

    blocked: str | None = None  # why it may not start, as said ("blocked by your organisation's …")
    sandbox: str | None = None  # why it must run in the sandbox, never unconfined, as said
    sampling_off: str | None = None  # why sampling is refused whatever its entry says, as said
    required: bool = False  # the policy's own server: never disabled, removed or left out


@dataclass(frozen=True)
class StdioServerSpec:
    name: str
    command: str
    provenance: Provenance
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()  # as written: values are expanded only at spawn
    cwd: str | None = None
    startup_timeout: float | None = None
    timeout: float | None = None
    disabled: bool = False
    sandbox: SandboxRequest | None = None  # what its `sandbox` key asks, after the tier's rules
    client: ClientFeatureSettings = DEFAULT_CLIENT_FEATURES
    always_load: bool = False
    timeouts: CallTimeouts | None = None  # `"timeouts"`: a long call's idle limit and cap
    organisation: OrgRule | None = None  # what the organisation's policy decided, if anything
    disabled_by: str | None = None  # when disabled by a profile or for this workspace: which, as said
    registry: RegistryOrigin | None = None  # `"registry"`: the registry it was added from, as written

    @property
    def transport(self) -> Literal["stdio"]:
        return "stdio"


@dataclass(frozen=True)
class HttpServerSpec:
    name: str
    url: str
    provenance: Provenance
    headers: tuple[tuple[str, str], ...] = ()  # as written: values are expanded only at connect
    startup_timeout: float | None = None
    timeout: float | None = None
    disabled: bool = False
    legacy_sse: bool = False  # `"type": "sse"`: the 2024-11-05 HTTP+SSE transport, not Streamable HTTP
    oauth: OAuthEntry | None = None  # how to sign in, when the defaults do not fit (config/oauth_entry.py)
    client: ClientFeatureSettings = DEFAULT_CLIENT_FEATURES
    always_load: bool = False
    timeouts: CallTimeouts | None = None  # `"timeouts"`: a long call's idle limit and cap
    organisation: OrgRule | None = None  # what the organisation's policy decided, if anything
    disabled_by: str | None = None  # when disabled by a profile or for this workspace: which, as said
    registry: RegistryOrigin | None = None  # `"registry"`: the registry it was added from, as written

    @property
    def transport(self) -> Literal["http"]:
        return "http"


ServerSpec = StdioServerSpec | HttpServerSpec


# The launch fingerprint (launch/trust.py) hashes this text: changing the scheme re-asks every approval.
LAUNCH_ENCODING_SCHEME = "levelcode-launch/1"


def launch_encoding(spec: ServerSpec) -> str:
    """The canonical text the fingerprint hashes: a JSON array, one slot per part of the launch."""
    if isinstance(spec, HttpServerSpec):
        parts: list[object] = ["http", spec.url, sorted([k, v] for k, v in spec.headers)]
        if spec.oauth is not None:  # only when written, so the fingerprints of entries without it stay
            parts.append(spec.oauth.encoded())
    else:
        parts = ["stdio", spec.command, list(spec.args), sorted([k, v] for k, v in spec.env), spec.cwd]
        if spec.sandbox is not None:  # only when present: approvals given before the key stay valid
            parts.append([SANDBOX_KEY, spec.sandbox.as_json()])
    return json.dumps([LAUNCH_ENCODING_SCHEME, *parts], ensure_ascii=False, separators=(",", ":"))


def entry_fingerprint(spec: ServerSpec) -> str:
    """The launch fingerprint of the entry's text (SHA-256 of `launch_encoding`): what the trust
    store keys a launch on before the facts of what it runs, and what an organisation's policy
    names a launch by."""
    return hashlib.sha256(launch_encoding(spec).encode("utf-8", "surrogatepass")).hexdigest()
