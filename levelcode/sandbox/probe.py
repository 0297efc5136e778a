"""Whether a sandbox can be set up on this machine: bwrap found and a real confined `true` run.

Probed once per process and cached. A machine without bwrap, or where the kernel refuses the
namespaces (user namespaces disabled, e.g. by Ubuntu's AppArmor restriction), has no sandbox,
and the reason says which.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from levelcode.sandbox.policy import SandboxPolicy, bwrap_argv

PROBE_TIMEOUT_SECONDS = 10.0
INSTALL_HINT = "install bubblewrap (e.g. `apt-get install bubblewrap`)"


@dataclass(frozen=True)
class SandboxSupport:
    bwrap: str | None  # the bwrap to run; None when there is no sandbox
    reason: str | None = None  # why there is none

    @property
    def available(self) -> bool:
        return self.bwrap is not None


@functools.cache
def sandbox_support() -> SandboxSupport:
    if not sys.platform.startswith("linux"):
        return SandboxSupport(None, f"the sandbox needs Linux (this is {sys.platform})")
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return SandboxSupport(None, f"bwrap was not found on PATH; {INSTALL_HINT}")
    return probe(bwrap)


def probe(bwrap: str) -> SandboxSupport:
    """Run `true` under the same options every command gets; any failure means no sandbox."""
    argv = bwrap_argv(SandboxPolicy(workdir=Path("/")), ["true"], bwrap=bwrap)
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return SandboxSupport(None, f"bwrap could not be run: {exc}")
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
        return SandboxSupport(
            None, f"bwrap cannot create a sandbox here ({said[0]}); user namespaces may be disabled"
        )
    return SandboxSupport(bwrap)
