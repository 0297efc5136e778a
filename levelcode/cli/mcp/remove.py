"""`levelcode mcp remove NAME [-s SCOPE]`, as Claude Code's: from the scope named, else from the one
scope whose file has the server (your settings, your file for this workspace, or the repository's
.mcp.json); when several have it, from none — they are listed, each with the command that
removes it there, and the status is 1.

Edits the one file through cli/mcp/scope.py (locked, atomic, the rest of the file kept); never a
repository's other files (.levelcode/mcp.json is named, not edited).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from levelcode.cli.mcp.add import workspace_files_naming
from levelcode.cli.mcp.manage import not_in_user_tier, required_refusal
from levelcode.cli.mcp.scope import SCOPE_WORDS, ServersFile, edit_servers_file, scopes_naming, servers_file
from levelcode.cli.printing import fail, say, workspace_of
from levelcode.core.errors import ConfigError
from levelcode.mcp.config.edit import ServerNotFound, user_servers, without_server
from levelcode.mcp.config.server_entry import parse_server_entry
from levelcode.mcp.config.specs import Provenance
from levelcode.mcp.config.tool_policy import POLICY_KEY
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.workspace_trust import WorkspaceTrust
from levelcode.platform.json_store import JsonDoc


def mcp_remove(args: argparse.Namespace) -> int:
    """From the scope named (-s), else from the one scope whose file has it; in several, none."""
    scope = getattr(args, "scope", None)
    refused = required_refusal(args) if scope in (None, "user") else None
    if refused is not None:
        return refused
    name, workspace = args.name, workspace_of(args)
    holding = scopes_naming(name, workspace) if scope is None else []
    if len(holding) > 1:
        return _in_several_scopes(name, holding)
    target = holding[0] if holding else servers_file(scope, workspace)
    before: list[object] = []
    after: list[JsonDoc] = []

    def remove(doc: JsonDoc) -> JsonDoc:
        before.append(user_servers(doc, target.doc).get(name))
        after.append(without_server(doc, name, target.doc))
        return after[0]

    try:
        edit_servers_file(target, remove)
    except ServerNotFound as exc:
        if target.scope == "user":
            return not_in_user_tier(args)
        return fail(exc, 1, *_elsewhere(name, workspace))
    except ConfigError as exc:
        return fail(exc, 1)
    say(f"Removed MCP server {name!r} from {target.path}")
    tier = target.doc.tier
    provenance = Provenance(tier, str(target.path))
    spec = parse_server_entry(name, before[0], provenance=provenance, key=name, problems=[])
    if spec is not None:
        say(f"  it ran: {launch_text(spec)}")
    if target.repository:
        if name in WorkspaceTrust(workspace).approved_servers():
            say(f"Its approval here is kept until you forget it: levelcode mcp revoke {name}")
        return 0
    policy = after[0].get(POLICY_KEY)
    kept = sorted(k for k in policy if str(k).startswith(f"{name}__")) if isinstance(policy, dict) else []
    if kept:
        say(f"{POLICY_KEY} still lists {', '.join(kept)}; edit {target.path} if you no longer want that.")
    for file in workspace_files_naming(workspace, name):
        say(f"note: {file} also names {name!r}; it starts there only if you approve it.")
    return 0


def _in_several_scopes(name: str, holding: list[ServersFile]) -> int:
    """Claude Code's answer to a name in several scopes: remove none, list them, ask for -s."""
    return fail(
        f"{name!r} is in more than one scope; nothing was removed:",
        1,
        *(f"  {t.scope:<8} {t.path} ({SCOPE_WORDS[t.scope]})" for t in holding),
        "To remove it from one, say which:",
        *(f"  levelcode mcp remove {name} -s {t.scope}" for t in holding),
    )


def _elsewhere(name: str, workspace: Path) -> list[str]:
    return [
        f"It is in {t.scope} ({t.path}): levelcode mcp remove {name} -s {t.scope}"
        for t in scopes_naming(name, workspace)
    ]
