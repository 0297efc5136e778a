"""What a built-in tool is: a name, a schema, an approval rule and an async body.

A tool body returns the text the model gets, or raises `ToolError` (which the loop turns into an
`ERROR: …` result). `approval` says whether a call may run without asking: it returns None to run
directly, or the request to show the user; it must be cheap and pure (no I/O beyond stat-like
checks), because the loop calls it before every run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from levelcode.core.approvals import ApprovalRequest, Approver
from levelcode.platform.spill_files import SpillFiles
from levelcode.sandbox.confinement import Confinement
from levelcode.tools.command_allowances import CommandAllowances

Args = Mapping[str, Any]


@dataclass
class ToolContext:
    """Per-session state the built-in tools share (one per chat; `/new` makes a new one)."""

    workspace: Path
    extra_roots: tuple[Path, ...] = ()  # directories the user allowed beyond the workspace
    autopilot: bool = False
    state: dict[str, object] = field(default_factory=dict[str, object])  # e.g. background jobs, todos
    sandbox: Confinement | None = None  # where commands run; None or unavailable: unconfined
    approver: Approver | None = None  # who may allow a blocked command one run outside the sandbox
    notify: Callable[[str], None] | None = None  # tells the user something (not the model)
    command_rules: CommandAllowances = field(default_factory=CommandAllowances)  # saved in settings
    saved_results: SpillFiles | None = None  # cut results saved this session: read_file may read them


@dataclass(frozen=True)
class BuiltinTool:
    name: str
    description: str
    input_schema: Mapping[str, object]
    run: Callable[[ToolContext, Args], Awaitable[str]]
    approval: Callable[[ToolContext, Args], ApprovalRequest | None] = lambda _ctx, _args: None
