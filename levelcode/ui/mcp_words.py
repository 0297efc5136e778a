"""The words for MCP servers' states and the MCP layer's notices: the one place they are phrased.

Pure: typed state in (mcp/launch/status.py, the launch review's trust and change), text out. Every
view — the run-start chip, `mcp list`, `/mcp`, `mcp get`, the notices of a run — says a state the
same way because it says it here. Server-supplied text inside is made safe where it is printed.
"""

from __future__ import annotations

from collections.abc import Sequence

from levelcode.mcp.config.specs import Tier
from levelcode.mcp.launch.server_box import ServerBox
from levelcode.mcp.launch.status import (
    DenialNotSaved,
    LaunchesDenied,
    LaunchHeld,
    LoginNeeded,
    McpNotice,
    Revoked,
    ServerBlocked,
    ServerFailed,
    ServerStatus,
    Stopped,
    ToolLeftOut,
)
from levelcode.mcp.launch.trust import OLD_APPROVAL, TrustState, since_approval
from levelcode.mcp.live.overview import Restarted, ServerSummary

PURE = True

NEEDS_APPROVAL = "needs approval"
NEEDS_LOGIN = "needs login"
MAX_NAMED_DENIALS = 8


def login_hint(server: str) -> str:
    return f"sign in with: levelcode mcp login {server}"


def waiting_words(trust: TrustState | None, change: str | None) -> str:
    """A server the launch gate holds: that it needs approval, and what changed since, if anything."""
    if trust != "changed":
        return NEEDS_APPROVAL
    if change is None or change == "command changed":
        return f"command changed — {NEEDS_APPROVAL}"
    if change == OLD_APPROVAL:
        return f"{change} — {NEEDS_APPROVAL}"
    return f"{change} since you approved — {NEEDS_APPROVAL}"


def reconsider_hint(server: str) -> str:
    return f"`levelcode mcp trust {server}` to reconsider"


def state_words(
    status: ServerStatus, trust: TrustState | None = None, change: str | None = None, *, server: str = "NAME"
) -> str:
    phase = status.phase
    if phase == "failed":
        return f"failed: {status.detail}" if status.detail else "failed"
    if phase in ("blocked", "disabled") and status.detail:
        return status.detail  # the organisation's refusal, or the profile or workspace that turned it off
    if trust == "denied" and phase in ("waiting_approval", "denied", "not_started", "stopped"):
        return f"denied — {reconsider_hint(server)}"
    if phase == "waiting_approval":
        return waiting_words(trust, change)
    if phase == "denied":
        if trust == "changed":
            return f"{change or 'command changed'} — you said no this session"
        return "not approved — you said no this session"
    if phase == "needs_login":
        return NEEDS_LOGIN
    return {"not_started": "not started", "starting": "starting"}.get(phase, phase)


def summary_state(summary: ServerSummary) -> str:
    return state_words(summary.status, summary.trust, summary.change, server=summary.name)


def sandbox_words(summary: ServerSummary) -> str | None:
    """Whether and how a local server runs confined; None for a remote one (no process here)."""
    if summary.remote:
        return None
    return confinement_words(summary.sandbox, summary.tier, summary.trust)


def confinement_words(box: ServerBox | None, tier: Tier, trust: TrustState | None) -> str:
    decided = tier != "workspace" or trust == "approved"
    if not decided:
        if box is not None:
            return "sandboxed once approved (its entry asks for it); you choose if it may write the workspace"
        return "you choose when you approve it: sandboxed (offered first) or unconfined"
    if box is None:
        if tier in ("user", "local"):
            return 'unconfined (your own server; add "sandbox" to its entry to confine it)'
        if tier == "organisation":
            return "unconfined (as your organisation's policy declares it)"
        return "unconfined, as you approved it"
    return box_words(box)


def box_words(box: ServerBox) -> str:
    """`sandboxed (as you approved it): writes its own folder, the workspace · network off`."""
    writes = ["its own folder", *(["the workspace"] if box.workspace else []), *box.write]
    by = {
        "entry": "its entry asks for it",
        "approval": "as you approved it",
        "organisation": "your organisation's policy requires it",
    }[box.by]
    return f"sandboxed ({by}): writes {', '.join(writes)} · {box_network_words(box)}"


def box_network_words(box: ServerBox) -> str:
    """`network on`, `network off`, or `network only to the npm registry, api.example.com`."""
    if box.network:
        return "network on"
    reached = [*([REGISTRY_WORDS[box.registry]] if box.registry else []), *box.hosts]
    return f"network only to {', '.join(reached)}" if reached else "network off"


REGISTRY_WORDS = {"npm": "the npm registry", "python": "the Python package index"}


def approval_hint(held: LaunchHeld) -> str:
    why = since_approval(held.change) if held.trust == "changed" else "a repository asked for it"
    return (
        f"MCP server {held.server!r} ({held.file}) was not started: it needs your approval ({why}). "
        f"Review and approve it in a terminal with: levelcode mcp trust {held.server}"
    )


def denied_before_words(notice: LaunchesDenied) -> str:
    names = notice.servers
    shown = ", ".join(names[:MAX_NAMED_DENIALS]) + (
        f" and {len(names) - MAX_NAMED_DENIALS} more" if len(names) > MAX_NAMED_DENIALS else ""
    )
    which = "MCP server" if len(names) == 1 else f"{len(names)} MCP servers"
    return (
        f"{which} you denied here before not started: {shown}. "
        f"To reconsider one: levelcode mcp trust {names[0] if len(names) == 1 else 'NAME'}"
    )


def notice_words(notice: McpNotice) -> str:
    if isinstance(notice, LaunchHeld):
        return approval_hint(notice)
    if isinstance(notice, LaunchesDenied):
        return denied_before_words(notice)
    if isinstance(notice, ServerFailed):
        return f"MCP server {notice.server!r} failed: {notice.detail}"
    if isinstance(notice, ServerBlocked):
        return f"MCP server {notice.server!r} was not started: {notice.detail}"
    if isinstance(notice, LoginNeeded):
        detail = notice.detail or f"needs you to sign in; run `levelcode mcp login {notice.server}`"
        return f"MCP server {notice.server!r} was not connected: it {detail}"
    if isinstance(notice, DenialNotSaved):
        return f"warning: could not remember that you denied {notice.server!r}: {notice.reason}"
    if isinstance(notice, ToolLeftOut):
        return (
            f"MCP server {notice.server!r}: tool {notice.tool!r} left out — its definition is "
            f"{notice.chars:,} characters, over the cap of {notice.limit:,} even with its schema's "
            "descriptions removed"
        )
    return f"warning: {notice.text}" if notice.warning else notice.text


def stopped_words(stopped: Stopped) -> list[str]:
    """What `/mcp stop NAME` says."""
    name = stopped.server
    if not stopped.was_running:
        return [f"{name!r} is not running in this session."]
    return [f"Stopped {name!r}; its tools are gone from the next request. /new starts it again if permitted."]


def restart_hint(summaries: Sequence[ServerSummary]) -> str | None:
    """Under `/mcp`'s list when a server failed: how to try it again without a new chat."""
    failed = [s.name for s in summaries if s.status.phase == "failed"]
    if not failed:
        return None
    return f"/mcp restart {failed[0]} starts {'it' if len(failed) == 1 else 'a failed server'} again."


def restarted_words(restarted: Restarted) -> list[str]:
    """What `/mcp restart NAME` says once the new start has ended."""
    name, summary = restarted.server, restarted.summary
    if summary is None:
        return [f"No MCP server named {name!r} (configured: {', '.join(restarted.configured) or 'none'})."]
    if summary.running:
        count = len(summary.tools)
        return [f"Restarted {name!r}: running, {count} tool{'' if count == 1 else 's'}."]
    if summary.status.phase == "failed":
        return [f"{name!r} failed again: {summary_state(summary).removeprefix('failed: ')}"]
    return [f"{name!r} was not started: {summary_state(summary)}"]


def revoked_words(revoked: Revoked) -> list[str]:
    """What `/mcp revoke NAME` says."""
    name = revoked.server
    if not revoked.was_approved:
        return [f"{name!r} was never approved in {revoked.workspace}; nothing to forget."]
    lines = [f"Forgot the approval of {name!r}: LevelCode will ask before starting {name} again here."]
    if revoked.still_running:
        lines.append(f"It is still running in this session; /mcp stop {name} stops it now.")
    return lines


def chip(summaries: Sequence[ServerSummary], *, deferred: int = 0) -> str | None:
    """`mcp · filesystem (11) · github (41) · 3/52 allow-listed · 1 server needs approval`;
    `deferred`: how many of the tools wait behind tool_search (their definitions not sent)."""
    if not summaries:
        return None
    running = [s for s in summaries if s.status.running]
    parts = ["mcp", *(f"{s.name} ({len(s.tools)})" for s in running)]
    total = sum(len(s.tools) for s in running)
    allowed = sum(1 for s in running for t in s.tools if t.decision == "allow")
    if running:
        parts.append(f"{allowed}/{total} allow-listed")
    if deferred:
        parts.append(f"{deferred}/{total} behind tool_search")
    held = [s for s in summaries if s.status.phase == "waiting_approval"]
    waiting = sum(1 for s in held if s.trust != "changed")
    changed = sum(1 for s in held if s.trust == "changed")
    failed = sum(1 for s in summaries if s.status.phase == "failed")
    blocked = sum(1 for s in summaries if s.status.phase == "blocked")
    parts.extend(
        _count(blocked, "server blocked by your organisation", "servers blocked by your organisation")
    )
    login = sum(1 for s in summaries if s.status.phase == "needs_login")
    parts.extend(_count(login, "server needs login", "servers need login"))
    parts.extend(_count(waiting, "server needs approval", "servers need approval"))
    parts.extend(_count(changed, "server changed since you approved it", "servers changed since approval"))
    parts.extend(_count(failed, "server failed", "servers failed"))
    parts.extend(f"{s.name}: {s.dropped} tools over the cap left out" for s in running if s.dropped)
    parts.extend(
        f"{s.name}: {len(s.left_out)} over the definition cap left out" for s in running if s.left_out
    )
    return " · ".join(parts) if len(parts) > 1 else None  # a bare "mcp" (all denied) says nothing


def _count(number: int, one: str, many: str) -> list[str]:
    if number == 0:
        return []
    return [f"{number} {one if number == 1 else many}"]
