"""The first moments of a session (`run`, the REPL): what it needs before anything heavy is
imported — workspace, settings, the provider's name and key — then the user's own servers spawned
from the start's one plan (mcp/launch/server_plan.py: the servers selected, their launches
resolved) and, only after that, the MCP runtime loaded on the same plan. So the servers boot while
LevelCode imports and sets up the rest. Light on purpose: no provider SDK, no
terminal UI, no tools, nothing of the MCP runtime until the servers are on their way.

A start that goes on with a saved session (`--continue`, `--resume`; cli/start/resumed_session.py) finds
it after the key and before any server is spawned, and takes its model.

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

from levelcode.cli.printing import workspace_of
from levelcode.cli.start.policy_flags import refuse_forbidden_flags
from levelcode.core.errors import ConfigError
from levelcode.mcp.launch.server_plan import ServerPlan, plan_servers
from levelcode.mcp.live.early_start import EarlyStart, start_planned
from levelcode.platform.settings_files import load_settings
from levelcode.policy.settings import Settings

if TYPE_CHECKING:
    from levelcode.agent.session_store import SavedSession
    from levelcode.cli.start.resumed_session import Pick
    from levelcode.mcp.live.runtime import McpRuntime
    from levelcode.providers.base import ProviderSettings


@dataclass
class SessionStart:
    args: argparse.Namespace
    workspace: Path
    settings: Settings
    provider_settings: ProviderSettings
    mcp: McpRuntime
    resumed: SavedSession | None = None  # the saved session this one goes on with


@dataclass
class LightStart:
    """A session's start before the MCP runtime is loaded: settings read, key found, servers begun."""

    args: argparse.Namespace
    workspace: Path
    settings: Settings
    provider_settings: ProviderSettings
    early: EarlyStart
    resumed: SavedSession | None = None

    def with_runtime(self) -> SessionStart:
        """The rest of the start: the servers held back spawned now, then the MCP runtime loaded
        (its hub takes over the servers begun; if loading it fails, they are ended)."""
        self.early.start_held()
        try:
            from levelcode.cli.start.sandbox_choice import extra_roots

            folders = extra_roots(self.args, self.settings)
            runtime = runtime_for(self.early.plan, folders, early=self.early)
        except BaseException:
            self.early.end_untaken()
            raise
        return SessionStart(
            self.args, self.workspace, self.settings, self.provider_settings, runtime, self.resumed
        )


def prepare_session(args: argparse.Namespace) -> SessionStart:
    """Raises ConfigError, or ProviderAuthError when there is no key (before any server starts)."""
    return light_start(args).with_runtime()


def light_start(
    args: argparse.Namespace, *, spawn_at_most: int | None = None, pick: Pick | None = None
) -> LightStart:
    """Settings, provider and key, the saved session asked for (`pick` chooses one for a bare
    `--resume`), then the user's servers spawned (`spawn_at_most` of them now, the rest by
    `with_runtime`). Raises ConfigError (the user's settings file cannot be used;
    SessionUnavailable among them), SessionUnreadable, or ProviderAuthError when there is no key
    — all before any server starts."""
    # imported here, not with the module: `mcp list` takes `runtime_for` alone and needs no provider
    from levelcode.cli.start.resumed_session import resumed_session, resumed_settings
    from levelcode.providers.factory import resolve_provider_settings
    from levelcode.providers.failures import missing_key_error

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
        preferences=settings.provider,
    )
    if not provider_settings.api_key:
        raise missing_key_error(provider_settings)
    resumed = resumed_session(args, workspace, pick=pick)  # None when none is asked for
    if resumed is not None:
        provider_settings = resumed_settings(
            provider_settings, resumed, args, settings.provider.context_window
        )
    profile = getattr(args, "profile", None)  # an unknown one: ConfigError, before any spawn
    early = start_planned(plan_servers(workspace, settings, profile=profile), at_most=spawn_at_most)
    return LightStart(args, workspace, settings, provider_settings, early, resumed)


def runtime_for(
    plan: ServerPlan, folders: Sequence[Path] = (), *, early: EarlyStart | None = None
) -> McpRuntime:
    """The MCP runtime on the start's plan (approvals and notices are attached when the session
    opens); `folders`: beyond the workspace, the roots servers are told (`allowedDirectories`,
    `--add-dir`); `early`: the plan's servers spawned already, which its hub takes over."""
    from levelcode.core.approvals import HeadlessApprover
    from levelcode.mcp.calls.deferral import TOOL_SEARCH_NAME
    from levelcode.mcp.live.client_features import workspace_roots
    from levelcode.mcp.live.runtime import McpRuntime
    from levelcode.tools.names import BUILTIN_TOOL_NAMES

    reserved = BUILTIN_TOOL_NAMES | {TOOL_SEARCH_NAME}
    roots = workspace_roots(plan.workspace, folders)
    return McpRuntime.planned(plan, HeadlessApprover(), early=early, reserved=reserved, roots=roots)


def refuse(exc: Exception) -> int:
    """A session that cannot start (bad settings, no key): said on stderr, exit status 2."""
    from levelcode.ui.visible import visible_block

    print(f"levelcode: {visible_block(str(exc))}", file=sys.stderr)
    return 2
