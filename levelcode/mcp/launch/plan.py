"""Where a stdio server starts and the arguments it gets: `${workspaceFolder}`, and the working
directory each tier gets; and any server's launch as the one line every card and view shows.

Pure: takes the spec and paths, returns strings and paths; never creates, reads or spawns.
`${workspaceFolder}` (VS Code's spelling) is filled in here, in `args` and `cwd`; the user's
variables in the command and arguments were filled in when the configuration was loaded
(config/launch_expansion.py), but for a secret's, filled in at spawn (resolve.py). A user-tier
server without `cwd` starts in its own private directory, never in the workspace: a repository
must not steer a server it did not declare (a planted module, `node_modules` or `.npmrc` is found
first in the cwd).
"""

from __future__ import annotations

import shlex
from pathlib import Path

from levelcode.mcp.config.specs import ServerSpec, StdioServerSpec

PURE = True

WORKSPACE_FOLDER = "${workspaceFolder}"


def expand_workspace_folder(text: str, workspace: Path) -> str:
    return text.replace(WORKSPACE_FOLDER, str(workspace))


def launch_argv(spec: StdioServerSpec, workspace: Path) -> tuple[str, ...]:
    """The command as written, then each argument with `${workspaceFolder}` filled in."""
    return (spec.command, *(expand_workspace_folder(arg, workspace) for arg in spec.args))


def launch_cwd(spec: StdioServerSpec, workspace: Path, private_dir: Path) -> Path:
    """The entry's `cwd` (relative: to the workspace, an explicit opt-in); without one, the
    workspace for a repository's server (its card says so) and `private_dir` for the user's own."""
    if spec.cwd:
        return workspace / expand_workspace_folder(spec.cwd, workspace)
    if spec.provenance.tier == "workspace":
        return workspace
    return private_dir


def uses_private_dir(spec: StdioServerSpec) -> bool:
    return not spec.cwd and spec.provenance.trusted


def launch_text(spec: ServerSpec) -> str:
    """The literal command line (or URL), quoted so that it reads back as exactly what runs."""
    if isinstance(spec, StdioServerSpec):
        return shlex.join((spec.command, *spec.args))
    return spec.url
