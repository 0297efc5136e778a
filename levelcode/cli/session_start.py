"""The first moments of a session (`run`, the REPL): what it needs before anything heavy is
imported — workspace, settings, the provider's name and key — then the user's own servers spawned
(mcp/early_start.py) and, only after that, the MCP configuration and runtime loaded. So the
servers boot while LevelCode imports and sets up the rest. Light on purpose: no provider SDK, no
terminal UI, no tools, nothing of the MCP runtime until the servers are on their way.

The REPL stops halfway (`light_start`): it draws its prompt first and loads the runtime behind it
(`LightStart.with_runtime`); `run` takes both steps at once (`prepare_session`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from levelcode.cli.policy_flags import refuse_forbidden_flags
from levelcode.cli.printing import workspace_of
from levelcode.core.errors import ConfigError
from levelcode.core.settings import Settings, load_settings
from levelcode.mcp.early_start import EarlyStart, start_user_servers
from levelcode.providers.base import ProviderSettings
from levelcode.providers.factory import resolve_provider_settings
from levelcode.providers.failures import missing_key_error

if TYPE_CHECKING:
    from levelcode.mcp.runtime import McpRuntime


@dataclass
class SessionStart:
    args: argparse.Namespace
    workspace: Path
    settings: Settings
    provider_settings: ProviderSettings
    mcp: McpRuntime


@dataclass
class LightStart:
    """A session's start before the MCP runtime is loaded: settings read, key found, servers begun."""

    args: argparse.Namespace
    workspace: Path
    settings: Settings
    provider_settings: ProviderSettings
    early: EarlyStart

    def with_runtime(self) -> SessionStart:
        """The rest of the start: the servers held back spawned now, then the MCP runtime loaded."""
        self.early.start_held()
        from levelcode.cli.sandbox_setup import extra_roots

        folders = extra_roots(self.args, self.settings)
        runtime = runtime_for(
            self.workspace, self.settings, folders, profile=getattr(self.args, "profile", None)
        )
        return SessionStart(self.args, self.workspace, self.settings, self.provider_settings, runtime)


def prepare_session(args: argparse.Namespace) -> SessionStart:
    """Raises ConfigError, or ProviderAuthError when there is no key (before any server starts)."""
    return light_start(args).with_runtime()


def light_start(args: argparse.Namespace, *, spawn_at_most: int | None = None) -> LightStart:
    """Settings, provider and key, then the user's servers spawned (`spawn_at_most` of them now,
    the rest by `with_runtime`). Raises ConfigError (the user's settings file cannot be used), or
    ProviderAuthError when there is no key (before any server starts)."""
    workspace = workspace_of(args)
    settings = load_settings(workspace)
    unusable = settings.unusable_user_file()
    if unusable is not None:  # not a session without the user's provider, servers and policy
        raise ConfigError(f"{unusable} (your settings; fix it, then start again)")
    refuse_forbidden_flags(args, settings)
    provider_settings = resolve_provider_settings(
        provider=getattr(args, "provider", None),
        model=getattr(args, "model", None),
        base_url=getattr(args, "base_url", None),
        env=os.environ,
        user_settings=settings.user,
    )
    if not provider_settings.api_key:
        raise missing_key_error(provider_settings)
    profile = getattr(args, "profile", None)  # an unknown one: ConfigError, before any spawn
    early = start_user_servers(workspace, settings, at_most=spawn_at_most, profile=profile)
    remember_early(args, early)
    return LightStart(args, workspace, settings, provider_settings, early)


def remember_early(args: argparse.Namespace, early: EarlyStart) -> None:
    """Write down what this command line spawned early, for its next run to spawn at once."""
    line = getattr(args, "command_line", None)
    if line is not None:
        from levelcode.mcp.stdio.remembered import remember

        remember(line, early.launched)


def runtime_for(
    workspace: Path, settings: Settings, folders: Sequence[Path] = (), *, profile: str | None = None
) -> McpRuntime:
    """The MCP runtime over both tiers (approvals and notices are attached when the session opens);
    `folders`: beyond the workspace, the roots servers are told (`allowedDirectories`, `--add-dir`);
    `profile`: only its servers start."""
    from levelcode.core.approvals import HeadlessApprover
    from levelcode.mcp.client_features import workspace_roots
    from levelcode.mcp.config.files import load_mcp_config
    from levelcode.mcp.gates.deferral import TOOL_SEARCH_NAME
    from levelcode.mcp.runtime import McpRuntime
    from levelcode.tools.names import BUILTIN_TOOL_NAMES

    config = load_mcp_config(workspace, settings, profile=profile)
    reserved = BUILTIN_TOOL_NAMES | {TOOL_SEARCH_NAME}
    roots = workspace_roots(workspace, folders)
    return McpRuntime(
        workspace, config, HeadlessApprover(), settings=settings, reserved=reserved, roots=roots
    )


def refuse(exc: Exception) -> int:
    """A session that cannot start (bad settings, no key): said on stderr, exit status 2."""
    from levelcode.ui.visible import visible_block

    print(f"levelcode: {visible_block(str(exc))}", file=sys.stderr)
    return 2
