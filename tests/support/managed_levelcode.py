"""`python tests/support/managed_levelcode.py POLICY ARGS...`: the real `levelcode` console script
(its early spawn included) with the organisation's policy read from POLICY instead of the
machine's place. Test-only: LevelCode reads its policy from one fixed path per OS, which no
environment variable moves (levelcode/platform/paths.py); the tests move it here, at that seam, in
the process under test alone.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

SCRIPT = Path(__file__).resolve()
ROOT = SCRIPT.parents[2]


def policy_command(policy: Path) -> list[str]:
    """The argv prefix that runs `levelcode` under the policy file `policy`."""
    return [sys.executable, str(SCRIPT), str(policy)]


def write_policy(path: Path, policy: Mapping[str, object] | str) -> Path:
    """The policy file, written 0644 as an administrator would (a text: written as it is)."""
    import json

    path.write_text(policy if isinstance(policy, str) else json.dumps(policy, indent=2), encoding="utf-8")
    path.chmod(0o644)
    return path


def _run(argv: Sequence[str]) -> None:
    policy = Path(argv[0])
    from levelcode.platform import paths

    paths.managed_settings_path = lambda platform=sys.platform: policy  # type: ignore[assignment]
    sys.argv = ["levelcode", *argv[1:]]
    from levelcode.cli.entry import entry

    entry()


if __name__ == "__main__":
    sys.path[0] = str(ROOT)  # not this folder: its module names are the tests'
    _run(sys.argv[1:])
