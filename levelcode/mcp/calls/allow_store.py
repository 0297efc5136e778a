"""Where an "always allow" answer is kept and read back (gate G2).

For the user's own servers: `mcpToolPolicy` in the user's settings.json, in the object form that
records the tool's definition. For a repository's server: the trust store, inside that server's
approval for this workspace — tied to the approved launch, never in settings.json, so a
same-named server of another repository never inherits it. Reads and writes files; what a rule
means is decided in policy.py.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from pathlib import Path

from levelcode.core.errors import ConfigError
from levelcode.mcp.calls.policy import PolicyEntry, policy_for_tool
from levelcode.mcp.config.allow_rules import AllowRule, ToolDefinition
from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.launch.trust import needs_launch_approval
from levelcode.mcp.launch.trust_store import TrustStore
from levelcode.platform.json_store import JsonDoc
from levelcode.platform.settings_store import update_user_settings


class ToolAllowances:
    def __init__(
        self,
        user_policy: MutableMapping[str, PolicyEntry],
        settings_file: Path,
        *,
        workspace: Path | None = None,
        store: TrustStore | None = None,
    ) -> None:
        self.user_policy = user_policy
        self.settings_file = settings_file
        self.workspace = workspace
        self.store = store  # replaced by the runtime when a new chat reads the store again

    def repository_rules(self, spec: ServerSpec) -> Mapping[str, AllowRule]:
        if self.store is None or self.workspace is None:
            return {}
        return self.store.tool_allowances(self.workspace, spec)

    def policy_for(self, spec: ServerSpec, name: str, tool: str) -> Mapping[str, PolicyEntry]:
        repository = needs_launch_approval(spec)
        rules = self.repository_rules(spec) if repository else {}
        return policy_for_tool(
            name, tool, repository=repository, user_policy=self.user_policy, repository_rules=rules
        )

    def record(self, spec: ServerSpec, name: str, tool: str, definition: ToolDefinition) -> str | None:
        """Keep "always" for this tool as defined now; None when kept, else why it was not."""
        if needs_launch_approval(spec):
            if self.store is None or self.workspace is None:
                return "no trust store to keep it in"
            if not self.store.allow_tool(self.workspace, spec, tool, definition):
                return f"{spec.name!r} is no longer approved in {self.workspace}"
            return None
        self.user_policy[name] = AllowRule("allow", definition)
        try:
            allow_mcp_tool(name, self.settings_file, definition=definition)
        except ConfigError as exc:
            return str(exc)
        return None


def allow_mcp_tool(name: str, path: Path | None = None, *, definition: ToolDefinition | None = None) -> Path:
    """Add `"name": "allow"` under mcpToolPolicy; with a definition, the object form that covers
    only the tool as defined now: `{"decision": "allow", "definition": {...hashes}}`."""

    def allow(doc: JsonDoc) -> None:
        policy = doc.setdefault("mcpToolPolicy", {})
        if not isinstance(policy, dict):
            raise ConfigError(
                '"mcpToolPolicy" in your settings is not an object; fix it first', origin=str(path)
            )
        policy[name] = "allow" if definition is None else AllowRule("allow", definition).as_json()

    return update_user_settings(allow, path)
