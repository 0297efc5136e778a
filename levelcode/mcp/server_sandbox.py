"""Starting a stdio server inside the sandbox: its own folder, its policy, and its argv and
environment wrapped in bwrap — the same policy builder and wrapper as the model's commands.

The spawn path's one step between resolving a launch and spawning it. Fails closed: a server
that must be confined where no sandbox can be set up does not start, and the error says why.
Never decides whether a server is confined (gates/server_box.py does) nor whether it may start
(the launch gate). The server's stdio passes through bwrap untouched; its process group is
bwrap's, so the usual reaping (SIGTERM → SIGKILL to the group, the watchdog, the parent-death
signal on bwrap, `--die-with-parent` inside) ends it whole.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path

from levelcode.core import paths
from levelcode.core.errors import ServerStartError
from levelcode.mcp.config.specs import StdioServerSpec
from levelcode.mcp.gates.server_box import ServerBox, box_folders
from levelcode.mcp.stdio.launch_spec import StdioLaunch
from levelcode.sandbox.confinement import Confinement, current_confinement
from levelcode.sandbox.policy import SandboxPolicy
from levelcode.sandbox.survey import confined_policy

REPOSITORY_FOLDERS = ".repository"  # under the servers folder; no user server's folder starts with "."


def sandboxed_launch(
    spec: StdioServerSpec,
    launch: StdioLaunch,
    box: ServerBox,
    *,
    workspace: Path,
    servers_dir: Path | None,
    confinement: Confinement | None = None,
) -> StdioLaunch:
    """`launch` as it runs confined by `box`; ServerStartError when there is no sandbox here."""
    confinement = confinement or current_confinement(network=False)
    if not confinement.available:
        raise ServerStartError(
            f"it must run in the sandbox ({why_confined(box)}), but no sandbox can be set up here: "
            f"{confinement.reason}; not started",
            server=spec.name,
        )
    policy = server_policy(
        spec, launch, box, workspace=workspace, servers_dir=servers_dir, confinement=confinement
    )
    argv, env = confinement.wrap(policy)(launch.argv, launch.env)
    return dataclasses.replace(launch, argv=tuple(argv), env=env, sandbox=policy)


def server_policy(
    spec: StdioServerSpec,
    launch: StdioLaunch,
    box: ServerBox,
    *,
    workspace: Path,
    servers_dir: Path | None,
    confinement: Confinement,
) -> SandboxPolicy:
    """What the server may touch: its own folder and /tmp, the folders its box names, and the
    network only when the box allows it; the secret stores hidden, as for commands."""
    host = confinement.host
    writable = box_folders(box, workspace, host.home)
    own = own_folder(spec, workspace, servers_dir)
    workdir = Path(launch.cwd).resolve()
    return confined_policy(
        workdir, writable, own, host, network=box.network, readable_dirs=(workspace, workdir, host.home)
    )


def own_folder(spec: StdioServerSpec, workspace: Path, servers_dir: Path | None) -> Path:
    """The one folder a confined server may always write (its caches point there too).

    Your own server's is its private working directory (`servers/NAME`). A repository's is one
    per workspace and server, so that what one repository's server leaves in its folder is never
    found by another's.
    """
    if spec.provenance.tier == "user":
        return paths.server_dir(spec.name, servers_dir)
    key = f"{os.path.realpath(workspace)}\0{spec.name}".encode("utf-8", "surrogatepass")
    stem = paths.file_stem(spec.name, fallback="server")[:40]
    root = servers_dir or paths.servers_dir()
    return root / REPOSITORY_FOLDERS / f"{stem}-{hashlib.sha256(key).hexdigest()[:16]}"


def why_confined(box: ServerBox) -> str:
    return "its entry asks for it" if box.by == "entry" else "you approved it sandboxed"
