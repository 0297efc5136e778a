"""What every `levelcode mcp …` command says before anything else: each configuration file it could
not use at all (bad JSON, not an object, unreadable), one line on stderr naming the file — and,
for a JSON mistake, the line and column. What the command says next (no such server, an empty
list) may follow from that file, so it comes first.

Reads the configuration only through config loading (mcp/config/files.py); never writes.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from levelcode.cli.printing import say
from levelcode.core.errors import ConfigProblem

if TYPE_CHECKING:
    from levelcode.mcp.config.tiers import McpConfig
    from levelcode.mcp.launch.server_plan import ServerPlan
    from levelcode.policy.settings import Settings


def say_unusable_files(problems: Iterable[ConfigProblem]) -> tuple[ConfigProblem, ...]:
    """Say each whole-file problem, one line each on stderr; the ones said."""
    unusable = tuple(problem for problem in problems if problem.whole_file)
    for problem in unusable:
        say(f"levelcode: {problem}", err=True)
    return unusable


def load_reported_config(
    workspace: Path, settings: Settings | None = None, *, profile: str | None = None
) -> McpConfig:
    """Both tiers' configuration, as config loading reads it (`profile`: only its servers on), with
    the files it could not use said first."""
    from levelcode.mcp.config.files import load_mcp_config

    config = load_mcp_config(workspace, settings, profile=profile)
    say_unusable_files(config.problems)
    return config


def reported_plan(workspace: Path, *, profile: str | None = None) -> ServerPlan:
    """The plan of a command's start (mcp/launch/server_plan.py: the servers selected, the launches
    of those that start unasked resolved), with the files it could not use said first."""
    from levelcode.mcp.launch.server_plan import plan_servers
    from levelcode.platform.settings_files import load_settings

    plan = plan_servers(workspace, load_settings(workspace), profile=profile)
    say_unusable_files(plan.config.problems)
    return plan


def unread_note(problems: Iterable[ConfigProblem]) -> list[str]:
    """For a command that did not find what it looked for: the files it could not read may hold it."""
    files = list(dict.fromkeys(problem.file for problem in problems if problem.whole_file))
    if not files:
        return []
    return [f"It may be in {' or '.join(files)}, which could not be read (see above)."]
