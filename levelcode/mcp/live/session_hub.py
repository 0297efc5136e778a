"""The hub as a session builds it: the session's connect options (the plan's, when it has one),
the roots servers are told, who answers what they ask of the user, and where its results and
protocol memory are kept. Builds only; never starts a server (the runtime begins them).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from levelcode.mcp.launch.connect_options import ConnectOptions, session_options
from levelcode.mcp.live.client_features import UserAnswers, WorkspaceRoots, features_for, workspace_roots
from levelcode.mcp.live.early_start import EarlyStart
from levelcode.mcp.live.hub import McpHub
from levelcode.mcp.live.protocol_memory import ProtocolMemory
from levelcode.platform import paths
from levelcode.policy.settings import Settings


def hub_options(
    workspace: Path,
    settings: Settings | None = None,
    *,
    roots: WorkspaceRoots | None = None,
    answers: UserAnswers | None = None,
    early: EarlyStart | None = None,
) -> ConnectOptions:
    """The options a session's hub connects with: the session's (the plan's, `early.options`, when
    there is one: its launches were resolved with them), the roots servers are told, and who
    answers what they ask of the user (nobody, by default)."""
    told = roots or workspace_roots(workspace)
    answering = answers or UserAnswers()
    if early is not None:
        base = early.options
    else:
        base = session_options(workspace, settings or Settings(user_file=paths.user_settings_path()))
    return dataclasses.replace(
        base, features_for=lambda spec, tell: features_for(spec, told, answering, tell)
    )


def make_hub(
    workspace: Path,
    settings: Settings | None = None,
    *,
    roots: WorkspaceRoots | None = None,
    answers: UserAnswers | None = None,
    early: EarlyStart | None = None,
) -> McpHub:
    """The hub as a session builds it (`hub_options`), its results and protocol memory under the
    state dir."""
    options = hub_options(workspace, settings, roots=roots, answers=answers, early=early)
    memory = ProtocolMemory(paths.state_dir() / "protocols.json")
    return McpHub(options, memory=memory, results_dir=paths.results_dir(), early=early)
