"""The user's own servers for one workspace only (`levelcode mcp add -s local`, Claude Code's local
scope): written by the user, kept outside the repository in a file of theirs per workspace
identity (platform/workspace_identity.py: every worktree of one repository shares it), trusted as
their settings are — they start without a card — but only in that workspace.

A `.git` that borrowed another repository's identity would gain that repository's local servers,
which is no more than the user's settings.json servers already get everywhere.

Pure: parses the document and merges it with the settings' servers; never reads or writes a file
(config/files.py reads it, cli/mcp/scope.py writes it).
"""

from __future__ import annotations

from collections.abc import Mapping

from levelcode.core.errors import ConfigProblem
from levelcode.core.json_text import is_absent
from levelcode.mcp.config.server_entry import ExpandSpec, parse_server_map
from levelcode.mcp.config.specs import Provenance
from levelcode.mcp.config.tiers import SERVERS_KEY, TierConfig, merge_tiers

PURE = True

WORKSPACE_KEY = "workspace"  # the identity the file is for, as workspace_identity() says it
FOLDER_KEY = "folder"  # the folder it was first written from, for a person reading the file
WHERE = "your servers for this workspace"


def parse_local_servers(
    doc: object, *, file: str, identity: str, expand: ExpandSpec | None = None
) -> TierConfig:
    """The local servers in `doc`, if it is this workspace's file (another's counts for nothing)."""
    if is_absent(doc):
        return TierConfig()
    if not isinstance(doc, Mapping):
        return TierConfig(problems=(ConfigProblem(file, "(top level)", "expected a JSON object"),))
    if doc.get(WORKSPACE_KEY, identity) != identity:
        return TierConfig()
    provenance = Provenance("local", file)
    servers, problems = parse_server_map(
        doc.get(SERVERS_KEY), provenance=provenance, key=SERVERS_KEY, expand=expand
    )
    return TierConfig(tuple(servers), {}, tuple(problems))


def own_servers(local: TierConfig, user: TierConfig) -> TierConfig:
    """The user's servers in this workspace: the local ones first, winning a name over the
    settings' (as in Claude Code; the collision is reported), then the settings' own; the tool
    policy is the settings'."""
    merged = merge_tiers(local, [user])
    return TierConfig(merged.servers, dict(user.tool_policy), merged.problems)
