"""What the user is asked before an MCP server starts (G1) or an MCP tool runs (G2/G3), and how
MCP arguments are shown anywhere else (G4: masked).

Pure. The launch card shows the literal command, every argument and every env entry exactly as
written — nothing summarised — so what the user approves is what the fingerprint covers.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from levelcode.core.approvals import Answer, ApprovalRequest
from levelcode.mcp.config.remote_urls import is_plaintext_remote
from levelcode.mcp.config.specs import HttpServerSpec, ServerSpec, StdioServerSpec
from levelcode.mcp.gates.launch_summary import PLAINTEXT_LINE, launch_summary
from levelcode.mcp.gates.overview import launch_text
from levelcode.mcp.gates.policy import McpVerdict
from levelcode.mcp.gates.server_box import asks_for_sandbox, launch_answers, why_sandboxed
from levelcode.mcp.gates.trust import (
    MISSING,
    OLD_APPROVAL,
    LaunchFacts,
    LaunchReview,
    is_cut_note,
    since_approval,
)

MASK = "<masked>"
MAX_ARGUMENT_CHARS = 300
MAX_ARGUMENT_LINES = 30
MAX_CHECKED_SHOWN = 12  # files named on a launch card; the rest counted (all are checked)
MAX_SUMMARY_LAUNCH = 90  # one server's launch on the card that lists many; its own card shows all


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
    body.append(denial_kept(spec.name))
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


def denial_kept(name: str) -> str:
    return f"Deny is remembered for exactly this launch: not asked again until `levelcode mcp trust {name}`."


def many_launches_card(reviews: Sequence[LaunchReview], workspace: Path) -> ApprovalRequest:
    """One card before many servers' cards: each name and command on one line, and the choice of
    reviewing them one card at a time or denying them all (remembered, as each card's denial)."""
    count = len(reviews)
    files = sorted({review.spec.provenance.file for review in reviews})
    body = [
        f"asked for by {', '.join(files)} — written by the repository, not by you",
        f"for: {workspace}",
        "",
    ]
    width = max(len(review.spec.name) for review in reviews)
    body.extend(f"{review.spec.name:<{width}}  {_one_line(review)}" for review in reviews)
    body.extend(
        [
            "",
            "None of them starts unless you approve it on its own card.",
            "A denied one is not asked about again until `levelcode mcp trust NAME`.",
            f"n, Esc or Ctrl-C deny all {count} as well.",
        ]
    )
    return ApprovalRequest(
        "mcp_launch",
        f"{count} MCP servers want to start",
        tuple(body),
        warning=f"a repository wants to run {count} programs on your machine",
        full_view="levelcode mcp list",
        answers=(
            Answer("r", "review_each", f"review each of the {count}, one card at a time"),
            Answer("d", "deny", f"deny all {count} (remembered)"),
        ),
    )


def _one_line(review: LaunchReview) -> str:
    """The launch in one line, cut: every card that approves shows it whole."""
    state = {"changed": "changed · ", "never_approved": ""}.get(review.state, "")
    text = state + launch_text(review.spec)
    return text if len(text) <= MAX_SUMMARY_LAUNCH else text[: MAX_SUMMARY_LAUNCH - 1] + "…"


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
        lines.append(f"         {why_sandboxed(spec)}, so it is not offered unconfined")
    return lines


def _unconfined_note(spec: ServerSpec, sandbox_missing: str | None) -> str | None:
    if sandbox_missing is None or not isinstance(spec, StdioServerSpec):
        return None
    return f"there is no sandbox here ({sandbox_missing}), so approving runs it unconfined"


def fact_lines(facts: LaunchFacts | None) -> list[str]:
    """What the approval covers beyond the text: the program the command resolves to, and the
    workspace files it runs or can import, whose content is checked again before every start
    (the first MAX_CHECKED_SHOWN named, with where a listing was cut)."""
    if facts is None:
        return []
    lines = [f"program: {facts.program or '(not found on its PATH)'}"]
    checked = [name for name, digest in facts.files if digest != MISSING and not is_cut_note(digest)]
    lines.extend(f"checks:  {name}" for name in checked[:MAX_CHECKED_SHOWN])
    if len(checked) > MAX_CHECKED_SHOWN:
        lines.append(f"checks:  … and {len(checked) - MAX_CHECKED_SHOWN} more files it runs or can import")
    lines.extend(
        f"checks:  {name.rpartition('/')[0] or '.'}/: {note}"
        for name, note in facts.files
        if is_cut_note(note)
    )
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
    """The call card: each long argument cut to fit, and every one in full (`full_body`) when
    anything was cut, for the card to show before the answer."""
    head = [f"server: {server}", f"tool:   {tool}", "arguments:"]
    shown, full = format_arguments(arguments), format_arguments(arguments, cut=False)
    return ApprovalRequest(
        "mcp_call",
        f"MCP call · {server} · {tool}",
        (*head, *shown),
        warning=verdict.warning,  # destructive, or what the server changed since you allowed it
        allow_always=verdict.can_always,
        always_label=always_label(server, verdict, settings_file),
        full_body=(*head, *full) if shown != full else (),
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


def format_arguments(arguments: Mapping[str, object], *, cut: bool = True) -> list[str]:
    """Pretty-printed, each long value cut and the whole bounded in lines (unless `cut` is False:
    then every character of every argument)."""
    if not arguments:
        return ["  (none)"]
    shown = {key: _cut(value) if cut else value for key, value in arguments.items()}
    lines = [
        "  " + line for line in json.dumps(shown, indent=2, ensure_ascii=False, default=str).splitlines()
    ]
    if cut and len(lines) > MAX_ARGUMENT_LINES:
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
