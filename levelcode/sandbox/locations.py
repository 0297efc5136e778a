"""What the sandbox policy names: the user's secret stores, agent sockets, git's control files and
the cache variables. Names and candidate paths only; never looks at the disk.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

# Under the home folder: credential stores of the usual CLIs (ssh, gpg, cloud, containers,
# package registries, other coding agents). Hidden only where they exist.
HOME_SECRET_DIRS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".oci",
    ".password-store",
    ".local/share/keyrings",
    ".codex",
)
HOME_SECRET_FILES = (
    ".netrc",
    ".git-credentials",
    ".docker/config.json",
    ".npmrc",
    ".yarnrc.yml",
    ".pypirc",
    ".pgpass",
    ".my.cnf",
    ".s3cfg",
    ".boto",
    ".vault-token",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".terraform.d/credentials.tfrc.json",
    ".claude/.credentials.json",
)
# Under the config home (~/.config, or $XDG_CONFIG_HOME when set).
CONFIG_SECRET_DIRS = ("gh", "gcloud", "hub", "glab-cli", "op", "doctl", "rclone")
# Unix sockets that hand out power: a read-only mount does not stop connect(), so they are hidden.
AGENT_SOCKETS = (
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/podman/podman.sock",
    "/run/containerd/containerd.sock",
    "/run/dbus/system_bus_socket",
)

LEVELCODE_DIR = ".levelcode"

# Where the usual tools keep their caches, pointed at the sandbox's own cache folder: HOME is
# read-only inside, and `uv run`, `npm test`, pip and go must still work.
CACHE_VARIABLES = (
    ("XDG_CACHE_HOME", ""),
    ("UV_CACHE_DIR", "uv"),
    ("UV_TOOL_DIR", "uv-tools"),  # `uvx` locks and may install here
    ("PIP_CACHE_DIR", "pip"),
    ("npm_config_cache", "npm"),
    ("YARN_CACHE_FOLDER", "yarn"),
    ("BUN_INSTALL_CACHE_DIR", "bun"),
    ("DENO_DIR", "deno"),
    ("GOCACHE", "go-build"),
)
PRIVATE_TMP = Path("/tmp")
# Where systemd-logind puts each user's runtime folder (/run/user/UID): the session bus, the gpg,
# ssh and keyring agents' sockets. Hidden whether or not $XDG_RUNTIME_DIR names it: a command run
# from a cron job, an SSH session without pam_systemd or `env -i` has the folder but not the name.
USER_RUNTIME_ROOT = Path("/run/user")


@dataclass(frozen=True)
class HostPaths:
    """Where this user's secrets and LevelCode's own files live on the host."""

    home: Path
    config_home: Path  # $XDG_CONFIG_HOME, or ~/.config
    levelcode_config: Path
    levelcode_state: Path
    runtime_dir: Path | None = None  # $XDG_RUNTIME_DIR: session bus, gpg and keyring sockets
    agent_socket: Path | None = None  # $SSH_AUTH_SOCK
    user_runtime_dir: Path | None = None  # /run/user/UID, whether or not $XDG_RUNTIME_DIR is set

    @classmethod
    def from_environment(
        cls,
        env: Mapping[str, str],
        *,
        config_dir: Path,
        state_dir: Path,
        uid: int | None = None,
        runtime_root: Path = USER_RUNTIME_ROOT,
    ) -> HostPaths:
        home = Path(env.get("HOME") or os.path.expanduser("~"))
        runtime, agent = env.get("XDG_RUNTIME_DIR"), env.get("SSH_AUTH_SOCK")
        return cls(
            home=home,
            config_home=Path(env.get("XDG_CONFIG_HOME") or home / ".config"),
            levelcode_config=config_dir,
            levelcode_state=state_dir,
            runtime_dir=Path(runtime) if runtime else None,
            agent_socket=Path(agent) if agent else None,
            user_runtime_dir=runtime_root / str(os.getuid() if uid is None else uid),
        )

    def secret_dirs(self) -> list[Path]:
        """Folders to hide (candidates: the caller keeps those that exist)."""
        found = [self.home / name for name in HOME_SECRET_DIRS]
        for config_home in dict.fromkeys((self.home / ".config", self.config_home)):
            found.extend(config_home / name for name in CONFIG_SECRET_DIRS)
        found += [self.levelcode_config, self.levelcode_state]
        found += [d for d in dict.fromkeys((self.runtime_dir, self.user_runtime_dir)) if d is not None]
        return found

    def secret_files(self) -> list[Path]:
        """Files to hide (candidates: the caller keeps those that exist)."""
        found = [self.home / name for name in HOME_SECRET_FILES]
        found += [Path(socket) for socket in AGENT_SOCKETS]
        if self.agent_socket is not None:
            found.append(self.agent_socket)
        return found

    def cache_dir(self, workspace: Path) -> Path:
        """The sandbox's cache folder for one workspace.

        One per workspace, not one shared: a repository's commands can write into the cache, and
        must not plant a package that another repository's commands would later install.
        """
        digest = hashlib.sha256(str(workspace).encode()).hexdigest()[:16]
        name = "".join(c if c.isalnum() or c in "-_." else "_" for c in workspace.name)[:40]
        return self.levelcode_state / "sandbox" / "cache" / f"{name or 'root'}-{digest}"

    def git_views_dir(self) -> Path:
        """Where the read-only copies a sandbox shows in place of a submodule's config are kept."""
        return self.levelcode_state / "sandbox" / "git-views"

    def quarantine_dir(self) -> Path:
        """Where git control entries planted by sandboxed processes are moved (hidden inside)."""
        return self.levelcode_state / "sandbox" / "quarantine"


def cache_environment(cache_dir: Path) -> dict[str, str]:
    return {name: str(cache_dir / sub) if sub else str(cache_dir) for name, sub in CACHE_VARIABLES}
