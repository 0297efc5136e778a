"""A session's sandbox: whether there is one (and why not), the host paths it hides, whether the
network is allowed (all of it, or the hosts on the session's list through the egress filter); a
fresh policy for each command, and the argv/env wrapper that applies it.

Commands reach only the hosts the user listed (`--allow-host`, `"sandbox": {"network": [...]}`):
not the package registries a sandboxed server's launcher gets, since what a command does is
chosen by the model, which what it read can steer, and a registry takes uploads as readily as
it serves downloads. `--allow-host registry.npmjs.org` lets `npm install` work.

The policy is surveyed per command, not once per session, so a `.git` or a secret store that
appears during the session is covered from the next command on; what a command planted in git's
control entries is moved away after it (`planted_git_control`).
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from levelcode.sandbox.egress_setup import COMMAND_HINT, egress_route
from levelcode.sandbox.locations import HostPaths
from levelcode.sandbox.policy import SandboxPolicy, confine
from levelcode.sandbox.probe import SandboxSupport, sandbox_support
from levelcode.sandbox.quarantine import quarantine_planted
from levelcode.sandbox.survey import build_policy

# Turns the argv and environment of a process into those that run it confined.
Wrap = Callable[[Sequence[str], Mapping[str, str]], tuple[list[str], dict[str, str]]]


@dataclass(frozen=True)
class Confinement:
    support: SandboxSupport
    host: HostPaths
    network: bool = False
    hosts: tuple[str, ...] = ()  # reached through the egress filter when `network` is off

    @property
    def available(self) -> bool:
        return self.support.available

    @property
    def reason(self) -> str:
        """Why there is no sandbox ("" when there is one)."""
        return self.support.reason or ""

    def policy_for(self, workspace: Path, extra_dirs: Iterable[Path] = ()) -> SandboxPolicy:
        policy = build_policy(workspace, extra_dirs, self.host, network=self.network)
        if self.network or not self.hosts:
            return policy
        route = egress_route(self.host, os.environ, listed=self.hosts, registry=None, hint=COMMAND_HINT)
        return dataclasses.replace(policy, egress=route)

    def wrap(self, policy: SandboxPolicy) -> Wrap:
        if self.support.bwrap is None:
            raise RuntimeError(f"no sandbox: {self.reason}")
        return functools.partial(confine, policy=policy, bwrap=self.support.bwrap)


def planted_git_control(policy: SandboxPolicy) -> list[str]:
    """After a process confined by `policy` (or while it runs): move away the git control entries
    it planted in its writable folders; the `[sandbox]` lines saying what went where."""
    return [] if policy.git is None else quarantine_planted(policy.git)


def current_confinement(
    *, network: bool, hosts: Iterable[str] = (), env: Mapping[str, str] | None = None
) -> Confinement:
    """This machine's sandbox for this user: probed once per process, paths from the environment;
    `hosts`: entries already checked (policy/network_hosts.py)."""
    from levelcode.platform import paths

    host = HostPaths.from_environment(
        os.environ if env is None else env, config_dir=paths.config_dir(), state_dir=paths.state_dir()
    )
    return Confinement(sandbox_support(), host, network, tuple(dict.fromkeys(hosts)))
