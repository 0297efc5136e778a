"""What the user is asked before an MCP server starts (G1) or an MCP tool runs (G2/G3), and how
MCP arguments are shown anywhere else (G4: masked).

Pure. The launch card shows the literal command, every argument and every env entry exactly as
written — nothing summarised — so what the user approves is what the fingerprint covers.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from pathlib import Path

from levelcode.core.approvals import ApprovalRequest
from levelcode.mcp.config.remote_urls import is_plaintext_remote
from levelcode.mcp.config.specs import HttpServerSpec, ServerSpec, StdioServerSpec
from levelcode.mcp.gates.launch_summary import PLAINTEXT_LINE, launch_summary
from levelcode.mcp.gates.overview import launch_text
from levelcode.mcp.gates.policy import McpVerdict
from levelcode.mcp.gates.server_box import asks_for_sandbox, launch_answers
from levelcode.mcp.gates.trust import MISSING, OLD_APPROVAL, LaunchFacts, LaunchReview, since_approval

MASK = "<masked>"
MAX_ARGUMENT_CHARS = 300
MAX_ARGUMENT_LINES = 30


def launch_card(
    review: LaunchReview,
    workspace: Path,
    withheld: Collection[str] = (),
    *,
    sandbox_missing: str | None = None,
) -> ApprovalRequest:
    """The consent card: decisive lines first (`summary`), then the launch exactly as written,
    and for a stdio server "approve, sandboxed" as the first answer. `withheld`: the variables it
    refers to that a repository's server is kept from; `sandbox_missing`: why this machine has
    no sandbox (then approving runs it unconfined, and the card says so)."""
    spec = review.spec
    origin = f"asked for by {spec.provenance.file} — written by the repository, not by you"
    body = [f"server:  {spec.name}", f"from:    {origin}", f"for:     {workspace}", ""]
    body.extend(launch_lines(spec))
    if isinstance(spec, StdioServerSpec) and not spec.cwd:
        body.append(f"dir:     {workspace} (the workspace: the server starts there)")
    body.extend(fact_lines(review.facts))
    body.extend(sandbox_lines(spec, sandbox_missing))
    body.extend(["", "Approve to let LevelCode start exactly this in this workspace; any change asks again."])
    changed = review.state == "changed"
    change = review.check.change or "command changed"
    warning = (
        f"{since_approval(change)} — review it again"
        if changed
        else "a repository wants to run a program on your machine"
    )
    title = f"{'review again' if change == OLD_APPROVAL else change} · " if changed else "new · "
    return ApprovalRequest(
        "mcp_launch",
        title + f"MCP server {spec.name!r}",
        tuple(body),
        warning=warning,
        summary=launch_summary(review, workspace, withheld),
        full_view=f"levelcode mcp get {spec.name}",
        note=_unconfined_note(spec, sandbox_missing),
        answers=launch_answers(spec, sandbox_missing=sandbox_missing is not None),
    )


def sandbox_lines(spec: ServerSpec, sandbox_missing: str | None) -> list[str]:
    """What the sandboxed answers mean, beside the launch they would confine."""
    if not isinstance(spec, StdioServerSpec) or sandbox_missing is not None:
        return []
    lines = [
        "sandbox: sandboxed, it can read what you can except your secret stores (~/.ssh, ~/.aws, …),",
        "         write only its own folder and a private /tmp (and the workspace, if you choose),",
        "         and reaches no network but its package registry (npx: npm's, uvx: your index)",
    ]
    if asks_for_sandbox(spec):
        lines.append("         its entry asks for the sandbox, so it is not offered unconfined")
    return lines


def _unconfined_note(spec: ServerSpec, sandbox_missing: str | None) -> str | None:
    if sandbox_missing is None or not isinstance(spec, StdioServerSpec):
        return None
    return f"there is no sandbox here ({sandbox_missing}), so approving runs it unconfined"


def fact_lines(facts: LaunchFacts | None) -> list[str]:
    """What the approval covers beyond the text: the program the command resolves to, and the
    workspace files it runs, whose content is checked again before every start."""
    if facts is None:
        return []
    lines = [f"program: {facts.program or '(not found on its PATH)'}"]
    lines.extend(f"checks:  {name}" for name, digest in facts.files if digest != MISSING)
    return lines


def launch_lines(spec: ServerSpec) -> list[str]:
    """Every part of the launch, as written: the command line, then each piece on its own line."""
    if isinstance(spec, HttpServerSpec):
        lines = [f"url:     {spec.url}"]
        if is_plaintext_remote(spec.url):
            lines.append(f"         {PLAINTEXT_LINE}")
        lines.extend(f"header:  {key}: {value}" for key, value in spec.headers)
        lines.extend(oauth_lines(spec))
        return lines
    lines = [f"runs:    {launch_text(spec)}", f"command: {spec.command}"]
    lines.extend(f"arg {index}:   {arg}" for index, arg in enumerate(spec.args, 1))
    lines.extend(f"env:     {key}={value}" for key, value in spec.env)
    if spec.cwd:
        lines.append(f"cwd:     {spec.cwd}")
    return lines


def oauth_lines(spec: HttpServerSpec) -> list[str]:
    """The `oauth` entry as written (its secret as the template it is, never expanded)."""
    oauth = spec.oauth
    if oauth is None:
        return []
    if not oauth.enabled:
        return ["oauth:   off (never signs in)"]
    written = {
        "client id": oauth.client_id,
        "client secret": oauth.client_secret,
        "scopes": " ".join(oauth.scopes) if oauth.scopes is not None else None,
        "callback port": oauth.callback_port,
        "client metadata": oauth.client_metadata_url,
    }
    return [f"oauth:   {label}: {value}" for label, value in written.items() if value is not None]


def call_card(
    server: str, tool: str, verdict: McpVerdict, arguments: Mapping[str, object], settings_file: str
) -> ApprovalRequest:
    body = [f"server: {server}", f"tool:   {tool}", "arguments:", *format_arguments(arguments)]
    return ApprovalRequest(
        "mcp_call",
        f"MCP call · {server} · {tool}",
        tuple(body),
        warning=verdict.warning,  # destructive, or what the server changed since you allowed it
        allow_always=verdict.can_always,
        always_label=always_label(server, verdict, settings_file),
    )


def always_label(server: str, verdict: McpVerdict, settings_file: str) -> str:
    """What "always" records, and where: it covers the tool as defined now."""
    if verdict.repository:
        return (
            f"always allow {verdict.name} in this workspace (kept with your approval of {server!r}; "
            "asks again if the server changes the tool)"
        )
    return (
        f"always allow {verdict.name} (records it in mcpToolPolicy in {settings_file}; "
        "asks again if the server changes the tool)"
    )


def format_arguments(arguments: Mapping[str, object]) -> list[str]:
    """Pretty-printed, each long value cut, the whole bounded in lines."""
    if not arguments:
        return ["  (none)"]
    shown = {key: _cut(value) for key, value in arguments.items()}
    lines = [
        "  " + line for line in json.dumps(shown, indent=2, ensure_ascii=False, default=str).splitlines()
    ]
    if len(lines) > MAX_ARGUMENT_LINES:
        lines = [*lines[:MAX_ARGUMENT_LINES], f"  … {len(lines) - MAX_ARGUMENT_LINES} more lines"]
    return lines


def _cut(value: object) -> object:
    if isinstance(value, str) and len(value) > MAX_ARGUMENT_CHARS:
        return value[:MAX_ARGUMENT_CHARS] + f"… [{len(value) - MAX_ARGUMENT_CHARS} more chars]"
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    text = json.dumps(value, ensure_ascii=False, default=str)
    return _cut(text) if len(text) > MAX_ARGUMENT_CHARS else value


def mask_arguments(arguments: Mapping[str, object]) -> dict[str, object]:
    """Keys kept, values masked: what logs, `--json` and the chat show of an MCP call."""
    return {str(key): MASK for key in arguments}
