"""What the user is asked before an MCP tool runs (G2/G3), and how MCP arguments are shown
anywhere else (G4: masked).

Pure. The card shows every argument (long ones cut, and then all of them in full before the
answer); logs, `--json` and the chat get the keys only, because arguments carry tokens.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from levelcode.core.approvals import ApprovalRequest
from levelcode.mcp.calls.policy import McpVerdict

PURE = True

MASK = "<masked>"
MAX_ARGUMENT_CHARS = 300
MAX_ARGUMENT_LINES = 30


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
