"""`levelcode mcp add | get | remove | enable | disable`: manage servers without editing JSON.

They write the user tier only (settings.json), atomically, keeping
the rest of the file; never a repository's file. Entries are built and validated in
mcp/config/edit.py with the checks config loading applies; nothing typed is expanded or run.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from levelcode.cli.mcp_live import sandbox_info
from levelcode.cli.mcp_parser import add_server_options
from levelcode.cli.printing import fail, say, workspace_of
from levelcode.core import paths
from levelcode.core.config_files import read_json_file
from levelcode.core.errors import ConfigError
from levelcode.core.json_store import JsonDoc
from levelcode.core.settings_store import update_user_settings
from levelcode.mcp.config.edit import (
    AddRequest,
    ServerExists,
    ServerNotFound,
    build_entry,
    entry_as_written,
    problems_for,
    split_add_arguments,
    user_servers,
    validate_entry,
    with_disabled,
    with_server,
    without_server,
)
from levelcode.mcp.config.files import load_mcp_config, load_workspace_tier
from levelcode.mcp.config.specs import (
    POLICY_KEY,
    McpConfig,
    Provenance,
    ServerSpec,
    StdioServerSpec,
    parse_server_entry,
)
from levelcode.mcp.gates.overview import launch_text
from levelcode.mcp.gates.trust import OLD_APPROVAL, TrustState, needs_launch_approval
from levelcode.mcp.trust_store import TrustStore

ACTIONS = ("add", "get", "remove", "enable", "disable")

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


class _OptionsParser(argparse.ArgumentParser):
    """Parses the options typed after NAME; errors become ConfigError instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise ConfigError(message)


def run_manage_command(args: argparse.Namespace) -> int:
    handlers: dict[str, Callable[[argparse.Namespace], int]] = {
        "add": mcp_add,
        "get": mcp_get,
        "remove": mcp_remove,
        "enable": mcp_toggle,
        "disable": mcp_toggle,
    }
    return handlers[args.mcp_command](args)


class _Unchanged(Exception):
    """The edit found nothing to change: the file is left exactly as it is."""


def _edit_settings(edit: Callable[[JsonDoc], JsonDoc | None]) -> tuple[Path, bool]:
    """Apply a pure edit to settings.json under its lock; (path, whether anything was written)."""

    def change(doc: JsonDoc) -> None:
        new = edit(doc)
        if new is None:
            raise _Unchanged
        doc.clear()
        doc.update(new)

    target = paths.user_settings_path()
    try:
        return update_user_settings(change, target), True
    except _Unchanged:
        return target, False
    except ConfigError as exc:
        if exc.origin is not None or isinstance(exc, ServerExists | ServerNotFound):
            raise
        raise ConfigError(f"{target}: {exc}", origin=str(target)) from exc


# --- add ---------------------------------------------------------------------------------------


def _add_request(args: argparse.Namespace) -> tuple[AddRequest, bool]:
    options, command = split_add_arguments(args.rest)
    parser = _OptionsParser(prog="levelcode mcp add", add_help=False, allow_abbrev=False)
    add_server_options(parser)
    parser.add_argument("-C", dest="workspace")
    late, unknown = parser.parse_known_args(options)
    if unknown:
        raise ConfigError(
            f"unexpected {unknown[0]!r}; put the server's command after --, as in: "
            "levelcode mcp add NAME [-e KEY=VALUE]... -- COMMAND [ARGS...]"
        )
    if late.workspace:
        args.workspace = late.workspace

    def pick(key: str) -> Any:
        value = getattr(late, key)
        return value if value is not None else getattr(args, key)

    request = AddRequest(
        command=tuple(command),
        env=(*(args.env or ()), *(late.env or ())),
        cwd=pick("cwd"),
        timeout=pick("timeout"),
        startup_timeout=pick("startup_timeout"),
        url=pick("url"),
        headers=(*(args.headers or ()), *(late.headers or ())),
        json_text=pick("json_text"),
    )
    return request, bool(args.replace or late.replace)


def mcp_add(args: argparse.Namespace) -> int:
    if any(word in ("-h", "--help") for word in split_add_arguments(args.rest)[0]):
        print(args.add_help())
        return 0
    name = args.name
    try:
        request, replace = _add_request(args)
        entry = build_entry(request, is_existing_path=os.path.exists)
        spec = validate_entry(name, entry, file=str(paths.user_settings_path()))
    except ConfigError as exc:
        return fail(exc, 2)
    existed: list[bool] = []

    def add(doc: JsonDoc) -> JsonDoc:
        existed.append(name in user_servers(doc))
        return with_server(doc, name, entry, replace=replace)

    try:
        path, _ = _edit_settings(add)
    except ServerExists as exc:
        return fail(f"{exc}; see it with `levelcode mcp get {name}`, or add again with --replace", 1)
    except ConfigError as exc:
        return fail(exc, 1)
    say(
        f"{'Replaced' if existed[0] else 'Added'} MCP server {name!r} in {path}",
        *_launch_lines(spec),
        "It is your own server (user tier): LevelCode starts it without asking for approval,",
        f"from your next session on. See it with: levelcode mcp get {name}",
    )
    if isinstance(spec, StdioServerSpec) and not spec.cwd:
        say(
            "It starts in its own empty directory, not in the workspace; if it needs the project,",
            "add it with --cwd . (relative to the workspace) or ${workspaceFolder} in its arguments.",
        )
    for file in _workspace_files_naming(workspace_of(args), name):
        say(f"note: {file} also names a server {name!r}; yours is the one that runs there.")
    return 0


def _launch_lines(spec: ServerSpec) -> list[str]:
    lines = [f"  runs:    {launch_text(spec)}"]
    if isinstance(spec, StdioServerSpec):
        lines += [f"  env:     {key}={value}" for key, value in spec.env]
        lines += [f"  cwd:     {spec.cwd}"] if spec.cwd else []
    else:
        lines += [f"  header:  {key}: {value}" for key, value in spec.headers]
    timeouts = (("timeout:", spec.timeout), ("startup:", spec.startup_timeout))
    return lines + [f"  {label:<9}{seconds:g} s" for label, seconds in timeouts if seconds is not None]


def _workspace_files_naming(workspace: Path, name: str) -> list[str]:
    return [
        spec.provenance.file
        for tier in load_workspace_tier(workspace)
        for spec in tier.servers
        if spec.name == name
    ]


# --- get ---------------------------------------------------------------------------------------


def mcp_get(args: argparse.Namespace) -> int:
    workspace = workspace_of(args)
    config = load_mcp_config(workspace)
    store = TrustStore()
    spec = config.server(args.name)
    if spec is None:
        return _get_missing(args, config, store, workspace)
    info = _server_info(spec, config, store, workspace)
    if not getattr(args, "no_start", False):
        from levelcode.cli.mcp_live import live_info

        info.update(live_info(spec, config, store, workspace))
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        say(*_render_info(info, workspace))
    return 0


def _server_info(spec: ServerSpec, config: McpConfig, store: TrustStore, workspace: Path) -> dict[str, Any]:
    doc, _ = read_json_file(Path(spec.provenance.file))
    review = store.review(workspace, spec) if needs_launch_approval(spec) else None
    trust = review.state if review else None
    change = review.check.change if review else None
    approved = store.approved_servers(workspace).get(spec.name) if trust == "changed" else None
    return {
        "name": spec.name,
        "configured": True,
        "tier": spec.provenance.tier,
        "file": spec.provenance.file,
        "transport": spec.transport,
        "launch": launch_text(spec),
        "disabled": spec.disabled,
        "trust": trust,
        "trustText": trust_words(trust, change) if trust else None,
        "change": change,
        "approvedLaunch": approved,
        "sandbox": sandbox_info(spec, store, workspace, trust),
        "entry": entry_as_written(doc, spec.name, spec.provenance.tier),
        "problems": [str(p) for p in problems_for(config.problems, spec.name)],
    }


def _render_info(info: dict[str, Any], workspace: Path) -> list[str]:
    name, user = info["name"], info["tier"] == "user"
    origin = "your settings" if user else "written by the repository, not by you"
    lines = [f"{name} · {info['tier']} · {info['file']} ({origin})", f"  runs:    {info['launch']}"]
    if info["disabled"]:
        where = f"enable with: levelcode mcp enable {name}" if user else "in the repository's file"
        lines.append(f"  state:   disabled ({where})")
    if user:
        lines.append("  trust:   your own server: starts without asking for approval")
    else:
        lines.append(f"  trust:   {info['trustText']} (workspace {workspace})")
        if info["approvedLaunch"] is not None:
            lines.append(f"  approved was: {info['approvedLaunch']}")
        lines.append(f"  next:    {_trust_step(name, info['trust'])}")
    if info["sandbox"] is not None:
        lines.append(f"  sandbox: {info['sandbox']['text']}")
    if "state" in info:
        from levelcode.cli.mcp_live import live_lines

        lines += live_lines(info)
    lines.append("  entry, as written:")
    lines += ["    " + line for line in json.dumps(info["entry"], indent=2, ensure_ascii=False).splitlines()]
    return lines + [f"  problem: {problem}" for problem in info["problems"]]


def _trust_step(name: str, trust: TrustState) -> str:
    if trust == "approved":
        return f"to forget the approval: levelcode mcp revoke {name}"
    if trust == "changed":
        return f"review the new command: levelcode mcp trust {name}"
    if trust == "denied":
        return f"you denied it; to reconsider: levelcode mcp trust {name}"
    return f"review and approve it: levelcode mcp trust {name}"


def _get_missing(args: argparse.Namespace, config: McpConfig, store: TrustStore, workspace: Path) -> int:
    name = args.name
    problems = problems_for(config.problems, name)
    stale = store.approved_servers(workspace).get(name)
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
    return fail(_unknown(name, config), 2, *_unreadable(config), *more)


def _unknown(name: str, config: McpConfig) -> str:
    names = ", ".join(spec.name for spec in config.servers) or "none"
    return f"no MCP server named {name!r} (configured: {names})"


def _unreadable(config: McpConfig) -> list[str]:
    """Problems with a whole file (unparsable settings, say), which can hide a server."""
    return [f"problem: {p}" for p in config.problems if p.key in ("(file)", "(top level)")]


# --- remove, enable, disable --------------------------------------------------------------------


def mcp_remove(args: argparse.Namespace) -> int:
    name = args.name
    before: list[object] = []
    after: list[JsonDoc] = []

    def remove(doc: JsonDoc) -> JsonDoc:
        before.append(user_servers(doc).get(name))
        after.append(without_server(doc, name))
        return after[0]

    try:
        path, _ = _edit_settings(remove)
    except ServerNotFound:
        return _not_in_user_tier(args)
    except ConfigError as exc:
        return fail(exc, 1)
    say(f"Removed MCP server {name!r} from {path}")
    spec = parse_server_entry(
        name, before[0], provenance=Provenance("user", str(path)), key=name, problems=[]
    )
    if spec is not None:
        say(f"  it ran: {launch_text(spec)}")
    policy = after[0].get(POLICY_KEY)
    kept = sorted(k for k in policy if str(k).startswith(f"{name}__")) if isinstance(policy, dict) else []
    if kept:
        say(f"{POLICY_KEY} still lists {', '.join(kept)}; edit {path} if you no longer want that.")
    for file in _workspace_files_naming(workspace_of(args), name):
        say(f"note: {file} also names {name!r}; it starts there only if you approve it.")
    return 0


def mcp_toggle(args: argparse.Namespace) -> int:
    name, disable = args.name, args.mcp_command == "disable"
    try:
        path, changed = _edit_settings(lambda doc: with_disabled(doc, name, disable))
    except ServerNotFound:
        return _not_in_user_tier(args)
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


def _not_in_user_tier(args: argparse.Namespace) -> int:
    """The name is not in your settings: explain a repository's server, or list what there is."""
    name, workspace = args.name, workspace_of(args)
    config = load_mcp_config(workspace)
    spec = config.server(name)
    if spec is None or not needs_launch_approval(spec):
        return fail(_unknown(name, config), 2, *_unreadable(config))
    review = TrustStore().review(workspace, spec)
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
        steps.append(f"To remove it from the repository, edit {file} yourself.")
    never_edits = "LevelCode never edits a repository's files, so nothing was changed."
    return fail(f"{name!r} comes from {file}, a repository's file.", 1, never_edits, *steps)
