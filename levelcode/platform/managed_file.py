"""Reading the organisation's policy file (platform/paths.py says where it is): once per process, and
with a warning when someone other than an administrator could change it.

Reads only: LevelCode never writes, creates or fixes this file — it is the platform team's. A
missing file is no policy; one that is there but cannot be read, is blank or does not parse to a
JSON object is a closed policy (policy/managed_policy.py), a link whose target is gone included. Every
part of a process that asks gets the same policy, read once: the early spawn, the settings, the
launch gate and the views never disagree about it.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path

from levelcode.core.errors import ConfigProblem
from levelcode.platform import paths
from levelcode.platform.config_files import read_config_text
from levelcode.policy.managed_policy import NO_POLICY, ManagedPolicy, policy_from_text, unusable_policy

_read: dict[Path, ManagedPolicy] = {}
WRITABLE_BITS = stat.S_IWGRP | stat.S_IWOTH


def read_managed_policy(path: Path | None = None) -> ManagedPolicy:
    """The policy at `path` (the platform's place when None), read the first time it is asked for."""
    where = path if path is not None else paths.managed_settings_path()
    if where not in _read:
        _read[where] = _read_once(where)
    return _read[where]


def _read_once(path: Path) -> ManagedPolicy:
    text, problem = read_config_text(path)
    if problem is None and text is None:
        if not os.path.lexists(path):
            return NO_POLICY
        problem = ConfigProblem(str(path), "(file)", "cannot be read: a link to a file that is not there")
    if problem is not None:
        return unusable_policy(problem)
    policy = policy_from_text(text or "", file=str(path))
    warnings = tuple(open_to_change(path))
    return dataclasses.replace(policy, problems=policy.problems + warnings) if warnings else policy


def open_to_change(path: Path) -> list[ConfigProblem]:
    """Warnings when the file, or its folder, may be changed by anyone but an administrator: not
    owned by root, or writable by its group or everyone. (On a system without owners, none.)"""
    if os.name != "posix":
        return []
    warnings: list[ConfigProblem] = []
    for what, target in (("the file", path), ("its folder", path.parent)):
        try:
            found = target.stat()
        except OSError:
            continue
        why = ownership_problem(found.st_uid, found.st_mode, folder=target != path)
        if why is not None:
            message = (
                f"warning: {what} {why}, so more than your administrators can change your "
                "organisation's policy; it should be owned by root and writable by root alone"
            )
            warnings.append(ConfigProblem(str(path), "owner and mode", message))
    return warnings


def ownership_problem(uid: int, mode: int, *, folder: bool = False) -> str | None:
    """Why an owner and mode let others change a file: `is owned by uid 1000`, `is writable by
    its group`; None when only root can. (In a sticky folder, such as /tmp, nobody but its owner
    may replace root's file.)"""
    if folder and mode & stat.S_ISVTX:
        mode &= ~WRITABLE_BITS
    if uid != 0:
        return f"is owned by uid {uid}, not root"
    if mode & stat.S_IWOTH:
        return "is writable by everyone"
    if mode & stat.S_IWGRP:
        return "is writable by its group"
    return None
