"""`python -m tests.support.unchecked_levelcode ARGS...`: the real `levelcode` CLI with the command
check out of the way — it calls every command safe — so the attack tests show that the sandbox
alone holds. With LEVELCODE_TEST_SANDBOX=off the sandbox also confines nothing and moves nothing a
command planted in git's control files, and an edit of a file git acts on asks no more than any
other: the positive control, where the same attacks must succeed. LEVELCODE_TEST_SCAN_LIMIT=N sets
how many entries the check for planted git files lists afresh in the writable folders, and
LEVELCODE_TEST_GIT_DIR_LIMIT=N in the git dirs, so a test reaches either bound with a few dozen
files.
Test-only: nothing in levelcode/ switches either off.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from unittest import mock

from levelcode.cli.main import main
from levelcode.sandbox import git_dir_links, git_scan
from levelcode.sandbox.policy import SandboxPolicy
from levelcode.tools.command_check.classify import CommandVerdict

SWITCH = "LEVELCODE_TEST_SANDBOX"
SCAN_LIMIT = "LEVELCODE_TEST_SCAN_LIMIT"
GIT_DIR_LIMIT = "LEVELCODE_TEST_GIT_DIR_LIMIT"


def _everything_is_safe(command: str, workspace: Path | None = None, **_: object) -> CommandVerdict:
    return CommandVerdict(False, ())


def _confine_nothing(
    argv: Sequence[str], env: Mapping[str, str], policy: SandboxPolicy, *, bwrap: str
) -> tuple[list[str], dict[str, str]]:
    return list(argv), dict(env)


def _move_nothing(baseline: object) -> list[str]:
    return []


def _acts_on_nothing(path: Path, roots: Sequence[Path]) -> str | None:
    return None


def run(argv: Sequence[str]) -> int:
    limit = int(os.environ.get(SCAN_LIMIT) or git_scan.MAX_SCAN_ENTRIES)
    git_dir_limit = int(os.environ.get(GIT_DIR_LIMIT) or git_dir_links.MAX_GIT_DIR_ENTRIES)
    with (
        mock.patch("levelcode.tools.command_approval.classify_command", _everything_is_safe),
        mock.patch.object(git_scan, "MAX_SCAN_ENTRIES", limit),
        mock.patch.object(git_dir_links, "MAX_GIT_DIR_ENTRIES", git_dir_limit),
    ):
        if os.environ.get(SWITCH) == "off":
            with (
                mock.patch("levelcode.sandbox.confinement.confine", _confine_nothing),
                mock.patch("levelcode.sandbox.confinement.quarantine_planted", _move_nothing),
                mock.patch("levelcode.tools.file_edit.git_target", _acts_on_nothing),
            ):
                return main(argv)
        return main(argv)


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
