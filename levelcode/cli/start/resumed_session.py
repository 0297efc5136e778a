"""Which saved session a start goes on with — `--continue` (the latest of this workspace),
`--resume ID`, or `--resume` alone (the picker, interactive only) — and the model it goes on with.

Runs in the light start, before any server is spawned: a session that cannot be had (none, open in
another LevelCode, unreadable) stops the start with one line, and nothing is left running.
Unreadable files met on the way are reported in one line each and skipped.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from levelcode.core.errors import ConfigError, SessionUnavailable
from levelcode.providers.base import ProviderSettings

if TYPE_CHECKING:
    from levelcode.agent.session_store import SavedSession, SessionSummary


class NothingChosen(SessionUnavailable):
    """The user left the picker without a session: not a failure (the REPL exits 0)."""


# Shows the sessions (and the lines about files it skipped); the chosen one's id, None to give up.
Pick = Callable[[Sequence["SessionSummary"], Sequence[str]], "str | None"]


def wants_a_session(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "continue_session", False)) or getattr(args, "resume", None) is not None


def resumed_session(
    args: argparse.Namespace, workspace: Path, *, pick: Pick | None = None
) -> SavedSession | None:
    """The session the command line asks for, read and locked; None when it asks for none.
    Raises SessionUnavailable or SessionUnreadable (for `--resume ID`)."""
    if not wants_a_session(args):
        return None
    from levelcode.agent.session_store import SessionFolder

    folder = SessionFolder(workspace)
    resume: str | None = getattr(args, "resume", None)
    if getattr(args, "continue_session", False):
        if resume is not None:
            raise ConfigError("--continue and --resume: give one of them")
        return folder.latest(report=report_skipped)
    if resume:
        return folder.open(resume)
    summaries, problems = folder.summaries()
    if not summaries:
        for problem in problems:
            report_skipped(problem)
        raise SessionUnavailable(f"no saved session to resume in {workspace}")
    if pick is None:
        raise ConfigError("--resume without an ID needs a terminal to pick from; give the session's ID")
    chosen = pick(summaries, problems)
    if chosen is None:
        raise NothingChosen("no session chosen; nothing was resumed")
    return folder.open(chosen)


def resumed_settings(
    settings: ProviderSettings,
    saved: SavedSession,
    args: argparse.Namespace,
    configured_window: int | None,
) -> ProviderSettings:
    """The session's own model, unless `--model` names one or the provider is not the session's
    (a Claude model is no model for OpenAI); then the start's, and the recap says so."""
    from levelcode.providers.model_catalog import settings_for_model

    model = saved.state.model
    if not model or getattr(args, "model", None) or saved.provider != settings.provider:
        return settings
    return settings_for_model(settings, model, configured_window)


def report_skipped(problem: str) -> None:
    from levelcode.ui.visible import visible

    print(f"levelcode: skipped a saved session: {visible(problem)}", file=sys.stderr)
