"""What exactly a stdio server runs: its argv (`${workspaceFolder}` filled in, and the `${VAR}`
config loading left as references because they look like secrets: mcp/config/launch_expansion.py),
its environment (the allowlist plus its own `env`, `${VAR}` expanded), a repository's server kept
from LevelCode's provider keys in both, its working directory and its log.

A repository's server gets `PYTHONPYCACHEPREFIX` (unless its entry sets it, which its card shows):
Python then reads and writes bytecode in the server's own folder, never in the workspace's
`__pycache__`, where anything that writes the workspace could plant bytecode stamped like a
module's source, which the approval's hash of that source would not see.

Reads nothing but the given environment mapping; `prepare_private_dir` creates the one directory a
user's server starts in. Whether the server may start was decided before (the launch gate). A
launch is resolved once per start of a server: by the start's plan for the servers that start
unasked (server_plan.py; the early start hands each to the hub, with its process when it spawned
it), else by the hub's transport plan.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from levelcode.core.errors import ServerStartError
from levelcode.mcp.config.environment import (
    NOTHING_WITHHELD,
    Withheld,
    expand_references,
    provider_keys_withheld,
    server_environment,
)
from levelcode.mcp.config.specs import ServerSpec, StdioServerSpec
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.launch.plan import WORKSPACE_FOLDER, launch_cwd, uses_private_dir
from levelcode.mcp.stdio.launch_spec import StdioLaunch
from levelcode.platform import paths

BYTECODE_VARIABLE = "PYTHONPYCACHEPREFIX"


def resolve_launch(
    spec: StdioServerSpec,
    parent_env: Mapping[str, str],
    *,
    workspace: Path,
    private_dir: Path,
    log_path: Path | None,
    max_message_bytes: int,
    withheld: Withheld,
    bytecode_dir: Path | None = None,
) -> StdioLaunch:
    """Raises ServerStartError naming a `${VAR}` in env that is not set (or withheld, unset).
    `bytecode_dir`: where Python keeps its bytecode (a repository's server: not the workspace)."""
    file = spec.provenance.file
    env = server_environment(spec.env, parent_env, server=spec.name, withheld=withheld, file=file)
    if bytecode_dir is not None:
        env.setdefault(BYTECODE_VARIABLE, str(bytecode_dir))
    cwd = launch_cwd(spec, workspace, private_dir)
    argv = filled_argv(spec, workspace, parent_env, withheld)
    return StdioLaunch(spec.name, argv, env, str(cwd), max_message_bytes, log_path)


def filled_argv(
    spec: StdioServerSpec, workspace: Path, parent_env: Mapping[str, str], withheld: Withheld
) -> tuple[str, ...]:
    """The command and arguments with the references config loading left (secrets) filled in,
    then `${workspaceFolder}` in the arguments (after: a folder whose name holds `${…}` must not
    name a variable). The command keeps `${workspaceFolder}` as written, as plan.launch_argv does."""

    def filled(word: str, field: str, key: str, folder: str) -> str:
        return folder.join(
            expand_references(
                part,
                parent_env,
                server=spec.name,
                key=key,
                field=field,
                withheld=withheld,
                file=spec.provenance.file,
            )
            for part in word.split(WORKSPACE_FOLDER)
        )

    return (
        filled(spec.command, "command", "", WORKSPACE_FOLDER),
        *(filled(arg, "arg", str(index), str(workspace)) for index, arg in enumerate(spec.args, 1)),
    )


def server_launch(
    spec: StdioServerSpec, options: ConnectOptions, parent_env: Mapping[str, str]
) -> StdioLaunch:
    """The launch as the hub's options make it, its private directory created. Raises
    ServerStartError naming a `${VAR}` that is not set, or a directory that cannot be made."""
    launch = resolve_launch(
        spec,
        parent_env,
        workspace=options.workspace,
        private_dir=paths.server_dir(spec.name, options.servers_dir),
        log_path=options.log_dir / paths.server_log_name(spec.name) if options.log_dir else None,
        max_message_bytes=options.max_message_bytes,
        withheld=withheld_from(spec, options, parent_env),
        bytecode_dir=_bytecode_dir(spec, options.workspace, options.servers_dir),
    )
    prepare_private_dir(spec, launch)
    return launch


def withheld_from(spec: ServerSpec, options: ConnectOptions, parent_env: Mapping[str, str]) -> Withheld:
    """A repository's server never receives LevelCode's provider keys, by `${VAR}` in env or headers."""
    if spec.provenance.tier != "workspace":
        return NOTHING_WITHHELD
    return provider_keys_withheld(parent_env, options.provider_key_values)


def _bytecode_dir(spec: StdioServerSpec, workspace: Path, servers_dir: Path | None) -> Path | None:
    """A repository's server's bytecode goes to its own folder; the user's own servers keep theirs."""
    if spec.provenance.tier != "workspace":
        return None
    from levelcode.mcp.launch.sandboxed_launch import own_folder  # only for a repository's server

    return own_folder(spec, workspace, servers_dir) / "pycache"


def prepare_private_dir(spec: StdioServerSpec, launch: StdioLaunch) -> None:
    """Create a user-tier server's own directory (0700) before it starts there."""
    if not uses_private_dir(spec):
        return
    directory = Path(launch.cwd)
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        directory.parent.chmod(0o700)
        directory.chmod(0o700)
    except OSError as exc:
        raise ServerStartError(
            f"cannot create its working directory {directory}: {exc}", server=spec.name
        ) from exc
