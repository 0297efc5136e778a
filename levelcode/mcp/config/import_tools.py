"""The other tools whose MCP configs `levelcode mcp import` reads: their ids and display names.

Kept apart from importers.py so that building the command-line parser does not import the
importers themselves."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

PURE = True

Tool = Literal["claude-desktop", "claude-code", "cursor", "vscode"]
TOOLS: tuple[Tool, ...] = ("claude-desktop", "claude-code", "cursor", "vscode")
TOOL_LABELS: Mapping[Tool, str] = {
    "claude-desktop": "Claude Desktop",
    "claude-code": "Claude Code",
    "cursor": "Cursor",
    "vscode": "VS Code",
}
