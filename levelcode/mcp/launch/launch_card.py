"""What the user is asked before an MCP server starts (G1): one server's consent card, and the
card before many.

Pure. The launch card shows the command, every argument and every env entry — nothing
summarised — as the fingerprint covers them: `${VAR}` in the command and arguments filled in,
except a secret's, shown as its reference beside "will receive your VAR" (config/launch_expansion.py);
env entries as written; a header by its name and a mask (config/shown_values.py).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from levelcode.core.approvals import Answer, ApprovalRequest
from levelcode.mcp.config.remote_urls import is_plaintext_remote
from levelcode.mcp.config.shown_values import masked_value, shown_header
from levelcode.mcp.config.specs import HttpServerSpec, ServerSpec, StdioServerSpec
from levelcode.mcp.launch.card_summary import PLAINTEXT_LINE, launch_summary
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.server_box import asks_for_sandbox, launch_answers, why_sandboxed
from levelcode.mcp.launch.trust import (
    MISSING,
    OLD_APPROVAL,
    LaunchFacts,
    LaunchReview,
    is_cut_note,
    since_approval,
)

PURE = True

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
    body = [f"server:  {spec.name}", f"from:    {origin}", f"for:     {workspace}"]
    if spec.registry is not None:  # what the entry says: the repository wrote that too
        body.append(f"registry: its entry says {spec.registry.describe()}")
    body.append("")
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
        lines.extend(f"header:  {shown_header(key, value)}" for key, value in spec.headers)
        lines.extend(oauth_lines(spec))
        return lines
    lines = [f"runs:    {launch_text(spec)}", f"command: {spec.command}"]
    lines.extend(f"arg {index}:   {arg}" for index, arg in enumerate(spec.args, 1))
    lines.extend(f"env:     {key}={value}" for key, value in spec.env)
    if spec.cwd:
        lines.append(f"cwd:     {spec.cwd}")
    return lines


def oauth_lines(spec: HttpServerSpec) -> list[str]:
    """The `oauth` entry as written (its secret masked: a `${VAR}` shown, never expanded)."""
    oauth = spec.oauth
    if oauth is None:
        return []
    if not oauth.enabled:
        return ["oauth:   off (never signs in)"]
    written = {
        "client id": oauth.client_id,
        "client secret": masked_value(oauth.client_secret) if oauth.client_secret else None,
        "scopes": " ".join(oauth.scopes) if oauth.scopes is not None else None,
        "callback port": oauth.callback_port,
        "client metadata": oauth.client_metadata_url,
    }
    return [f"oauth:   {label}: {value}" for label, value in written.items() if value is not None]
