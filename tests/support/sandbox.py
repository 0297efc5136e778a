"""The sandbox in tests: a session's confinement built like the CLI builds it, the check that
skips a test, with the probe's reason, where this machine cannot set one up, and a repository's
server approved sandboxed."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from levelcode.mcp.config.tiers import parse_workspace_file
from levelcode.mcp.launch.server_box import SandboxChoice
from levelcode.mcp.launch.trust_store import TrustStore
from levelcode.platform import paths
from levelcode.sandbox.confinement import Confinement, current_confinement
from levelcode.sandbox.locations import HostPaths
from levelcode.sandbox.probe import SandboxSupport, sandbox_support
from tests.support.missing import required

MARKER = "sandbox"


def real_confinement(*, network: bool = False) -> Confinement:
    """This machine's sandbox, for the isolated HOME and LEVELCODE_HOME of the running test."""
    return current_confinement(network=network)


def missing_confinement(reason: str = "bwrap was not found on PATH") -> Confinement:
    """A session on a machine without a sandbox."""
    return Confinement(SandboxSupport(None, reason), _host())


def assumed_confinement() -> Confinement:
    """A sandbox that is taken to exist, for rules that only ask whether there is one."""
    return Confinement(SandboxSupport("/usr/bin/bwrap"), _host())


def _host() -> HostPaths:
    return HostPaths.from_environment(os.environ, config_dir=paths.config_dir(), state_dir=paths.state_dir())


# Set by .ci/run (LEVELCODE_TEST_REQUIRE_ALL, which it also sets, implies it): there, bwrap is
# installed, so only a kernel that refuses it (or another OS) may turn the sandbox tests into
# skips; a missing bwrap or a probe that could not run is a failure, never a quiet green run with
# the sandbox untested.
REQUIRED = "LEVELCODE_TEST_REQUIRE_SANDBOX"
KERNEL_REFUSED = ("bwrap cannot create a sandbox here", "the sandbox needs Linux")


def skip_without_sandbox(item: pytest.Item) -> None:
    if item.get_closest_marker(MARKER) is None:
        return
    support = sandbox_support()
    if support.available:
        return
    reason = support.reason or "no reason given"
    if required(REQUIRED) and not reason.startswith(KERNEL_REFUSED):
        pytest.fail(f"{REQUIRED} is set, but there is no sandbox: {reason}", pytrace=False)
    pytest.skip(f"no sandbox on this machine: {reason}")


def python_in_tmp() -> tuple[Path, ...]:
    """The running Python's environment when it lies under /tmp (a checkout cloned there): a
    command that runs it inside the sandbox needs it added, as a user would add it with --add-dir,
    for the private /tmp hides it. Elsewhere it is in the sandbox already: nothing."""
    prefix = Path(sys.prefix)
    return (prefix,) if prefix.is_relative_to("/tmp") else ()


@contextlib.contextmanager
def host_folder() -> Iterator[Path]:
    """A scratch folder outside /tmp, removed afterwards. Inside the sandbox /tmp is private, so a
    write under the test's own tmp_path would vanish quietly; under here it meets the read-only
    file system, as a write to a real home or system folder does."""
    base = Path("/var/tmp") if os.access("/var/tmp", os.W_OK) else Path.home()
    folder = Path(tempfile.mkdtemp(prefix="levelcode-sandbox-test-", dir=base))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def repository_server(
    home: Path, workspace: Path, entry: dict[str, Any], sandbox: SandboxChoice = "own"
) -> None:
    """`entry` as the workspace's `.mcp.json` server "repo", approved here sandboxed."""
    config = workspace / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"repo": entry}}))
    spec = parse_workspace_file(json.loads(config.read_text()), file=str(config)).servers[0]
    TrustStore(home / "state" / "trust.json").approve(workspace, spec, "approved", sandbox=sandbox)


def server_log(home: Path, name: str) -> str:
    path = home / "state" / "logs" / f"{name}.log"
    return path.read_text() if path.exists() else ""
