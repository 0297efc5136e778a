"""Claude Code for the start-up bench: the `claude` to compare with (given, on PATH, or installed
from npm into a folder the bench removes), its version, and a HOME whose *user* scope holds the
server, so that `claude mcp list` starts it. Never writes a project `.mcp.json`: Claude Code holds
a project's servers for approval and does not start them, and a list that starts nothing is no
comparison.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "@anthropic-ai/claude-code"
INSTALL_TIMEOUT_SECONDS = 600


class ClaudeCodeMissing(Exception):
    """No `claude` to compare with: none given or on PATH, and npm could not install one."""


class NotConnected(Exception):
    """`claude mcp list` ran but did not say the server connected: its time would not be a start."""


@dataclass(frozen=True)
class ClaudeCode:
    path: str
    version: str
    source: str  # how it was found: "given", "PATH" or "installed from npm into a temporary folder"


def find_or_install(given: str | None, folder: Path, version: str) -> ClaudeCode:
    """`given`, else `claude` on PATH, else `PACKAGE@version` installed under `folder`."""
    if given:
        return ClaudeCode(given, version_of(given), "given")
    on_path = shutil.which("claude")
    if on_path:
        return ClaudeCode(on_path, version_of(on_path), "PATH")
    path = install(folder, version)
    return ClaudeCode(path, version_of(path), "installed from npm into a temporary folder")


def install(folder: Path, version: str) -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise ClaudeCodeMissing(f"`claude` is not on PATH and npm is not installed to fetch {PACKAGE}")
    argv = [npm, "install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error"]
    argv += ["--prefix", str(folder), f"{PACKAGE}@{version}"]
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_SECONDS, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise ClaudeCodeMissing(f"npm install {PACKAGE}@{version} took over {exc.timeout:.0f} s") from exc
    binary = folder / "node_modules" / ".bin" / "claude"
    if done.returncode != 0 or not binary.exists():
        said = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        raise ClaudeCodeMissing(f"npm install {PACKAGE}@{version} failed ({done.returncode}):\n{said}")
    return str(binary)


def version_of(path: str) -> str:
    """The version `claude --version` prints ("2.1.197 (Claude Code)" gives "2.1.197")."""
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        raise ClaudeCodeMissing(f"{path} --version failed: {exc}") from exc
    words = done.stdout.split()
    return words[0] if words else "unknown"


def environment(home: Path) -> dict[str, str]:
    """The bench's environment with HOME set to `home`, and no variable that would point Claude
    Code at another configuration than the one in it."""
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"}
    return {**env, "HOME": str(home)}


def home_with_server(claude: ClaudeCode, name: str, command: Sequence[str], workspace: Path) -> Path:
    """A new HOME whose user scope has the stdio server `name` (`claude mcp add -s user`)."""
    home = Path(tempfile.mkdtemp(prefix="levelcode-bench-claude-"))
    argv = [claude.path, "mcp", "add", "-s", "user", name, "--", *command]
    done = subprocess.run(
        argv, env=environment(home), cwd=workspace, capture_output=True, text=True, timeout=60, check=False
    )
    if done.returncode != 0:
        raise NotConnected(
            f"`claude mcp add -s user {name}` failed ({done.returncode}): {done.stderr.strip()}"
        )
    return home


def check_connected(output: str, name: str) -> None:
    """Claude Code's list says `name: COMMAND - ✔ Connected` for a server it started and spoke to;
    anything else (pending approval, failed, missing) means it started nothing worth timing."""
    line = next((line for line in output.splitlines() if line.startswith(f"{name}:")), None)
    if line is None or "Connected" not in line:
        raise NotConnected(f"`claude mcp list` did not connect to {name}; it printed:\n{output.strip()}")
