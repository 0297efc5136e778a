"""`levelcode mcp get | remove | enable | disable`: see and manage servers without editing JSON
(`mcp add` and `add-json` are in add.py).

They write the file of the scope that holds the server (cli/mcp/scope.py): your settings.json,
your file for this workspace (local), or the workspace's .mcp.json — `remove NAME` from the one
scope that has it, as Claude Code's does, and from none when several do — atomically, keeping the
rest of the file. Edits are made in mcp/config/edit.py; nothing typed is expanded or run.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from levelcode.cli.mcp.config_report import load_reported_config, reported_plan, unread_note
from levelcode.cli.mcp.live_details import describe_server, live_info, sandbox_info
from levelcode.cli.mcp.scope import (
    PROJECT_FILE,
    edit_servers_file,
    scopes_naming,
    servers_file,
)
from levelcode.cli.printing import fail, say, workspace_of
from levelcode.core.errors import ConfigError
from levelcode.mcp.config.edit import (
    ServerNotFound,
    entry_as_written,
    problems_for,
    with_disabled,
)
from levelcode.mcp.config.registry_entry import RegistryOrigin
from levelcode.mcp.config.shown_values import shown_entry
from levelcode.mcp.config.specs import ServerSpec, entry_fingerprint
from levelcode.mcp.config.tiers import McpConfig
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.trust import OLD_APPROVAL, TrustState
from levelcode.mcp.launch.workspace_trust import WorkspaceTrust
from levelcode.mcp.live.overview import ServerDescription
from levelcode.platform.config_files import read_json_file
from levelcode.platform.json_store import NOT_OVERWRITTEN, UnreadableFile
from levelcode.platform.workspace_identity import describe_identity, workspace_identity
from levelcode.platform.workspace_servers import turn_off
from levelcode.ui.mcp_views import organisation_json

ACTIONS = ("get", "enable", "disable")  # remove: cli/mcp/remove.py

TRUST_WORDS: dict[TrustState, str] = {
    "approved": "approved",
    "never_approved": "never approved",
    "changed": "approved, then the command changed",
    "denied": "denied, remembered (levelcode mcp trust asks again)",
}


def trust_words(trust: TrustState, change: str | None) -> str:
    """ "approved", "never approved", "approved, then server.py changed"."""
    if trust != "changed" or change in (None, "command changed"):
        return TRUST_WORDS[trust]
    return (
        "approved by an older LevelCode, before it checked files"
        if change == OLD_APPROVAL
        else f"approved, then {change}"
    )


def run_manage_command(args: argparse.Namespace) -> int:
    handlers: dict[str, Callable[[argparse.Namespace], int]] = {
        "get": mcp_get,
        "enable": mcp_toggle,
        "disable": mcp_toggle,
    }
    return handlers[args.mcp_command](args)


# --- get ---------------------------------------------------------------------------------------


def mcp_get(args: argparse.Namespace) -> int:
    workspace = workspace_of(args)
    plan = reported_plan(workspace, profile=getattr(args, "profile", None))
    config = plan.config
    spec = config.server(args.name)
    if spec is None:
        return _get_missing(args, config, WorkspaceTrust(workspace))
    start = not getattr(args, "no_start", False)
    described = describe_server(spec, plan, start=start)  # its launch reviewed once
    info = _server_info(spec, config, described)
    if start:
        info.update(live_info(described))
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        say(*_render_info(info, workspace))
    return 0


def _server_info(spec: ServerSpec, config: McpConfig, described: ServerDescription) -> dict[str, Any]:
    doc, _ = read_json_file(Path(spec.provenance.file))
    summary = described.summary
    trust, change = summary.trust, summary.change
    return {
        "name": spec.name,
        "configured": True,
        "tier": spec.provenance.tier,
        "file": spec.provenance.file,
        "transport": spec.transport,
        "launch": launch_text(spec),
        "disabled": spec.disabled,
        "disabledBy": spec.disabled_by,
        "fingerprint": entry_fingerprint(spec),
        "organisation": organisation_json(spec.organisation),
        "trust": trust,
        "trustText": trust_words(trust, change) if trust else None,
        "change": change,
        "approvedLaunch": described.approved_launch,
        "sandbox": sandbox_info(summary),
        "registry": spec.registry.as_json() if spec.registry else None,
        "entry": shown_entry(entry_as_written(doc, spec.name, spec.provenance.tier)),
        "problems": [str(p) for p in problems_for(config.problems, spec.name)],
    }


ORIGINS = {
    "user": "your settings",
    "local": "yours, for this workspace only",
    "organisation": "required by your organisation's policy",
    "workspace": "written by the repository, not by you",
}


def _render_info(info: dict[str, Any], workspace: Path) -> list[str]:
    name, blocked = info["name"], (info["organisation"] or {}).get("blocked")
    lines = [
        f"{name} · {info['tier']} · {info['file']} ({ORIGINS[info['tier']]})",
        f"  runs:    {info['launch']}",
    ]
    lines += registry_lines(info)
    lines += _state_lines(info)
    if not blocked:  # no answer and no tier starts it: the state line says why
        lines += _trust_lines(info, workspace)
        if info["sandbox"] is not None:
            lines.append(f"  sandbox: {info['sandbox']['text']}")
    lines.append(f"  fingerprint: {info['fingerprint']} (what an organisation's policy can name it by)")
    if "state" in info:
        from levelcode.cli.mcp.live_details import live_lines

        lines += live_lines(info)
    lines.append("  entry, as written:")
    lines += ["    " + line for line in json.dumps(info["entry"], indent=2, ensure_ascii=False).splitlines()]
    return lines + [f"  problem: {problem}" for problem in info["problems"]]


def registry_lines(info: dict[str, Any]) -> list[str]:
    """`from: SERVER VERSION from REGISTRY (publisher …)`: where its entry says it came from."""
    written = info.get("registry")
    if not written:
        return []
    origin = RegistryOrigin(written["url"], written["name"], written["version"])
    said = " (as the repository's entry says)" if info["tier"] == "workspace" else ""
    return [f"  from:    {origin.describe()}{said}"]


def _state_lines(info: dict[str, Any]) -> list[str]:
    """Blocked by the organisation, or disabled (and by what); then what else the policy decided."""
    organisation = info["organisation"] or {}
    if organisation.get("blocked"):
        return [f"  state:   {organisation['blocked']}"]
    lines = []
    if info["disabled"] and info["disabledBy"]:
        lines.append(f"  state:   {info['disabledBy']}")
    elif info["disabled"]:
        where = (
            f"enable with: levelcode mcp enable {info['name']}"
            if info["tier"] in ("user", "local")
            else f"in {info['file']}"
        )
        lines.append(f"  state:   disabled ({where})")
    return lines + [
        f"  policy:  {organisation[key]}" for key in ("sandbox", "sampling") if organisation.get(key)
    ]


def _trust_lines(info: dict[str, Any], workspace: Path) -> list[str]:
    if info["tier"] != "workspace":
        whose = "your own server" if info["tier"] in ("user", "local") else "your organisation's server"
        return [f"  trust:   {whose}: starts without asking for approval"]
    lines = [f"  trust:   {info['trustText']} (workspace {workspace})"]
    if info["approvedLaunch"] is not None:
        lines.append(f"  approved was: {info['approvedLaunch']}")
    return [*lines, f"  next:    {_trust_step(info['name'], info['trust'])}"]


def _trust_step(name: str, trust: TrustState) -> str:
    if trust == "approved":
        return f"to forget the approval: levelcode mcp revoke {name}"
    if trust == "changed":
        return f"review the new command: levelcode mcp trust {name}"
    if trust == "denied":
        return f"you denied it; to reconsider: levelcode mcp trust {name}"
    return f"review and approve it: levelcode mcp trust {name}"


def _get_missing(args: argparse.Namespace, config: McpConfig, trust: WorkspaceTrust) -> int:
    name, workspace = args.name, trust.workspace
    problems = problems_for(config.problems, name)
    stale = trust.approved_servers().get(name)
    if args.json:
        doc = {"name": name, "configured": False, "problems": [str(p) for p in problems]}
        doc["staleApproval"] = None if stale is None else {"workspace": str(workspace), "launch": stale}
        print(json.dumps(doc, indent=2))
    if problems:
        return fail(f"{name!r} is configured but not loaded:", 1, *(f"  problem: {p}" for p in problems))
    more = []
    if stale is not None:
        more = [
            f"A stale approval for {name!r} is stored for {workspace} (approved: {stale});",
            f"forget it with: levelcode mcp revoke {name}",
        ]
    return fail(_unknown(name, config), 2, *unread_note(config.problems), *more)


def _unknown(name: str, config: McpConfig) -> str:
    names = ", ".join(spec.name for spec in config.servers) or "none"
    return f"no MCP server named {name!r} (configured: {names})"


# --- remove, enable, disable --------------------------------------------------------------------


def required_refusal(args: argparse.Namespace) -> int | None:
    """A server the organisation's policy requires is never disabled or removed: said, status 1.
    (The configuration is read quietly: the command says the files it cannot use itself.)"""
    from levelcode.mcp.config.files import load_mcp_config

    config = load_mcp_config(workspace_of(args))
    spec = config.server(args.name)
    if spec is None or spec.organisation is None or not spec.organisation.required:
        return None
    if args.mcp_command == "enable":
        say(f"{args.name!r} is {config.managed.decided('required')}: it always starts; nothing to enable.")
        return 0
    what = "removed" if args.mcp_command == "remove" else "disabled"
    refusal = config.managed.refusal("required", f"it cannot be {what}")
    return fail(f"nothing changed: {args.name!r} is {refusal}", 1)


def mcp_toggle(args: argparse.Namespace) -> int:
    refused = required_refusal(args)
    if refused is not None:
        return refused
    if getattr(args, "here", False):
        return toggle_here(args)
    name, disable, workspace = args.name, args.mcp_command == "disable", workspace_of(args)
    own = [target for target in scopes_naming(name, workspace) if not target.repository]
    settings = own[0] if own else servers_file(None, workspace)  # the one that runs here: local first
    path = settings.path
    try:
        changed = edit_servers_file(settings, lambda doc: with_disabled(doc, name, disable, settings.doc))
    except ServerNotFound:
        return not_in_user_tier(args)
    except ConfigError as exc:
        return fail(exc, 1)
    if not changed:
        say(f"{name!r} is already {'disabled' if disable else 'enabled'} in {path}; nothing changed.")
    elif disable:
        say(
            f'Disabled MCP server {name!r} in {path} ("disabled": true): it will not start.',
            "A LevelCode session already open keeps it until that session ends.",
        )
    else:
        say(
            f"Enabled MCP server {name!r} in {path}: it starts with your next session,",
            "without asking (it is your own server).",
        )
    return 0


def toggle_here(args: argparse.Namespace) -> int:
    """`enable|disable NAME --here`: for this workspace's repository only, any server."""
    name, workspace, off = args.name, workspace_of(args), args.mcp_command == "disable"
    config = load_reported_config(workspace)
    spec = config.server(name)
    if spec is None:
        return fail(_unknown(name, config), 2, *unread_note(config.problems))
    try:
        changed = turn_off(workspace, name, off)
    except UnreadableFile as exc:
        return fail(f"{exc.problem.file}: {exc}; {NOT_OVERWRITTEN}", 1)
    except OSError as exc:
        return fail(f"could not keep the choice: {exc}", 1)
    where = describe_identity(workspace_identity(workspace))
    if not changed:
        say(f"{name!r} is already {'off' if off else 'on'} here ({where}); nothing changed.")
    elif off:
        say(
            f"Disabled {name!r} here: it will not start in {where}.",
            f"To undo: levelcode mcp enable {name} --here. A session already open keeps it until /new.",
        )
    else:
        say(f"Enabled {name!r} here again ({where}).")
    if not off and spec.disabled and spec.disabled_by is None:
        say(f'Its entry in {spec.provenance.file} says "disabled": true, so it still does not start.')
    return 0


def not_in_user_tier(args: argparse.Namespace) -> int:
    """The name is not in your settings: explain a repository's server, or list what there is."""
    name, workspace = args.name, workspace_of(args)
    config = load_reported_config(workspace)
    spec = config.server(name)
    review = WorkspaceTrust(workspace).review(spec) if spec is not None else None
    if spec is None or review is None:  # none, or your own (a repository server has a review)
        return fail(_unknown(name, config), 2, *unread_note(config.problems))
    trust = review.state
    file = spec.provenance.file
    if args.mcp_command == "enable" and trust == "approved" and not spec.disabled:
        say(f"{name!r} comes from {file} and is approved in {workspace}: it starts there already.")
        return 0
    steps = [f"It starts here only with your approval; now: {trust_words(trust, review.check.change)}."]
    if args.mcp_command == "enable":
        steps.append(
            f'It is "disabled" in {file}; only an edit of that file changes that.'
            if spec.disabled
            else f"Review and approve it with: levelcode mcp trust {name}"
        )
    elif trust == "never_approved":
        steps.append("Not approved, it does not start; to keep it that way, do not approve it.")
    else:
        steps.append(f"To keep it from starting here, forget the approval: levelcode mcp revoke {name}")
    if args.mcp_command == "remove":
        steps.append(_how_to_remove_from(Path(file), workspace, name))
    never_edits = (
        "Nothing was changed: of a repository's files, LevelCode edits only .mcp.json, and only "
        "to add or remove a server there."
    )
    return fail(f"{name!r} comes from {file}, a repository's file.", 1, never_edits, *steps)


def _how_to_remove_from(file: Path, workspace: Path, name: str) -> str:
    if file == workspace / PROJECT_FILE:
        return f"To remove it from the repository: levelcode mcp remove {name} -s project"
    return f"To remove it from the repository, edit {file} yourself."
