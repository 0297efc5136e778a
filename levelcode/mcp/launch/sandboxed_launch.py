"""Starting a stdio server inside the sandbox: its own folder, its policy, and its argv and
environment wrapped in bwrap — the same policy builder and wrapper as the model's commands.

The spawn path's one step between resolving a launch and spawning it. Fails closed: a server
that must be confined where no sandbox can be set up does not start, and the error says why.
Never decides whether a server is confined (launch/server_box.py does) nor whether it may start
(the launch gate). The server's stdio passes through bwrap untouched; its process group is
bwrap's, so the usual reaping (SIGTERM → SIGKILL to the group, the watchdog, the parent-death
signal on bwrap, `--die-with-parent` inside) ends it whole.

Unless its entry turns the whole network on, a confined server reaches the network through the
egress filter (sandbox/egress.py), which lets through the registry its launcher uses and the
hosts your entry lists, and notes in its log each host it refused and how to allow it. Its
package caches are its own folder's, empty on the first start: bubblewrap here (0.8) cannot
overlay your npm or uv cache with a private layer (`--overlay` came in 0.9), and sharing your
cache writable would let a repository's server plant a package that your own unconfined `npx`
or `uvx` later runs; so the first start fetches through the filter, and later ones find it in
its own cache.

A program (or a script its arguments name) that lives under /tmp is shown read-only inside, in
its folder (a `bin` folder's parent, so a virtualenv's runs; `node_modules` for one in its
`.bin`, so the package it links to is there): the sandbox's /tmp is private, and would hide it.
A program that lies in /tmp itself is refused with the reason: showing its folder would mean
showing all of /tmp (and a file an argument names there stays hidden).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

from levelcode.core.errors import ServerStartError
from levelcode.mcp.config.specs import StdioServerSpec
from levelcode.mcp.launch.inspection import find_program
from levelcode.mcp.launch.server_box import ServerBox, box_folders
from levelcode.mcp.stdio.launch_spec import StdioLaunch
from levelcode.platform import paths
from levelcode.sandbox.confinement import Confinement, current_confinement
from levelcode.sandbox.egress import EgressRoute
from levelcode.sandbox.egress_setup import REPOSITORY_SERVER_HINT, USER_SERVER_HINT, egress_route
from levelcode.sandbox.locations import PRIVATE_TMP
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
    network only when the box allows it (else through the egress filter); the secret stores
    hidden, as for commands. ServerStartError when its program lies directly in /tmp."""
    host = confinement.host
    writable = box_folders(box, workspace, host.home)
    own = own_folder(spec, workspace, servers_dir)
    workdir = Path(launch.cwd).resolve()
    shown = (workspace, workdir, host.home, *program_folders(spec, launch))
    policy = confined_policy(workdir, writable, own, host, network=box.network, readable_dirs=shown)
    if box.network:
        return policy
    return dataclasses.replace(policy, egress=server_route(spec, box, confinement))


def server_route(spec: StdioServerSpec, box: ServerBox, confinement: Confinement) -> EgressRoute:
    """Its way out: your entry's hosts and its launcher's registry, as you configured it."""
    hint = USER_SERVER_HINT if spec.provenance.trusted else REPOSITORY_SERVER_HINT
    return egress_route(confinement.host, os.environ, listed=box.hosts, registry=box.registry, hint=hint)


def program_folders(spec: StdioServerSpec, launch: StdioLaunch) -> list[Path]:
    """The folders under /tmp of its program and of the files its arguments name, to be shown
    read-only inside (its folder; a `bin` folder's parent, and `node_modules` for its `.bin`, whose
    entries link into the packages beside it)."""
    folders: list[Path] = []
    for file, is_program in _files_run(launch):
        if file.parent == PRIVATE_TMP and is_program:
            raise ServerStartError(
                f"its program {file} lies in /tmp itself, which is private in the sandbox; move it "
                f"into a folder of its own (e.g. /tmp/{spec.name}/) or out of /tmp; not started",
                server=spec.name,
            )
        if file.parent == PRIVATE_TMP:
            continue  # a file an argument names in /tmp itself stays hidden with the rest of it
        prefix = file.parent.parent  # a virtualenv, an install prefix, or node_modules
        folders.append(
            prefix if file.parent.name in ("bin", ".bin") and prefix != PRIVATE_TMP else file.parent
        )
    return folders


def _files_run(launch: StdioLaunch) -> Iterator[tuple[Path, bool]]:
    """(file, whether it is the program) for the program as its spawn finds it and the absolute
    paths among its arguments, those that are files under /tmp."""
    program = find_program(launch.argv[0], launch.env.get("PATH", os.defpath), Path(launch.cwd))
    named = [(Path(program), True)] if program else []
    named += [(Path(a), False) for a in launch.argv[1:] if a.startswith("/")]
    for path, is_program in named:
        if path.is_relative_to(PRIVATE_TMP) and path.is_file():
            yield path, is_program


def own_folder(spec: StdioServerSpec, workspace: Path, servers_dir: Path | None) -> Path:
    """The one folder a confined server may always write (its caches point there too).

    Your own server's is its private working directory (`servers/NAME`). A repository's is one
    per workspace and server, so that what one repository's server leaves in its folder is never
    found by another's.
    """
    if spec.provenance.trusted:
        return paths.server_dir(spec.name, servers_dir)
    key = f"{os.path.realpath(workspace)}\0{spec.name}".encode("utf-8", "surrogatepass")
    stem = paths.file_stem(spec.name, fallback="server")[:40]
    root = servers_dir or paths.servers_dir()
    return root / REPOSITORY_FOLDERS / f"{stem}-{hashlib.sha256(key).hexdigest()[:16]}"


def why_confined(box: ServerBox) -> str:
    return {
        "entry": "its entry asks for it",
        "approval": "you approved it sandboxed",
        "organisation": "your organisation's policy requires it",
    }[box.by]
