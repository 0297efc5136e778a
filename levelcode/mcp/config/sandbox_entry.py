"""A stdio server entry's `"sandbox"` key, as plain data, and which tier may set which part of it.

Pure: takes the parsed JSON value, returns the request and reports problems; never looks at the
disk. The shape is `{"write": [folders], "network": true|false|["host", …]}`, or `true` for the
defaults (its own folder only; the network only to the package registry its launcher uses).

- From the user's own settings every part applies as written: the server runs in the sandbox,
  writes its own folder and the listed ones; `"network": true` gives it the whole network, a
  list of hosts (`api.example.com`, `host:port`, `*.example.com`, policy/network_hosts.py) lets it
  reach those through the egress filter as well as its package registry.
  A malformed value still confines the server (with the defaults): the user asked for a sandbox.
- From a repository's file the key can only ask. Its presence means the server runs in the
  sandbox (the launch card then offers no unconfined answer); what would widen the sandbox —
  folders to write, `"network": true`, hosts to reach — is ignored and reported, because the
  sandbox is there to hold against the repository that wrote the entry. Where it writes (its own
  folder, or also the workspace) is the user's answer on the card.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from levelcode.policy.network_hosts import host_entries

PURE = True

SANDBOX_KEY = "sandbox"
REPOSITORY_WRITE_IGNORED = (
    "a repository's entry cannot choose folders for its server to write; ignored (your answer on "
    "the launch card decides: its own folder, or the workspace too)"
)
REPOSITORY_NETWORK_IGNORED = (
    "a repository's entry cannot give its server the network in the sandbox; ignored (the network stays off)"
)
REPOSITORY_HOSTS_IGNORED = (
    "a repository's entry cannot let its server reach more hosts; ignored (it reaches only its package "
    'registry; to allow more, declare the server in your own settings with "sandbox": {"network": [hosts]})'
)

Note = Callable[[str, str], None]  # (sub-key, message): a problem under the entry's `sandbox` key


@dataclass(frozen=True)
class SandboxRequest:
    """What an entry asks of the sandbox, after the tier's rules: folders as written (`~`,
    `${workspaceFolder}`, relative to the workspace), and whether it may use the network."""

    write: tuple[str, ...] = ()
    network: bool = False
    hosts: tuple[str, ...] = ()  # what it may reach through the egress filter (entries as written)

    def as_json(self) -> dict[str, object]:
        # hosts only when there are some: the launch fingerprint hashes this, and approvals given
        # before the key existed must stay valid
        return {"write": list(self.write), "network": self.network} | (
            {"hosts": list(self.hosts)} if self.hosts else {}
        )


def parse_sandbox_entry(raw: object, *, repository: bool, note: Note) -> SandboxRequest | None:
    """The entry's request; None when it asks for no sandbox (absent, null or false)."""
    if raw is None or raw is False:
        return None
    if raw is True:
        return SandboxRequest()
    if not isinstance(raw, Mapping):
        note(
            "",
            'expected true or an object such as {"write": ["~/notes"], "network": false}; '
            "the server runs in the sandbox with the defaults",
        )
        return SandboxRequest()
    for key in sorted(str(k) for k in raw if k not in ("write", "network")):
        note(key, "unknown key, ignored")
    write = _folders(raw.get("write", []), note)
    network, hosts = _network(raw.get("network", False), note)
    if repository:
        if write:
            note("write", REPOSITORY_WRITE_IGNORED)
        if network:
            note("network", REPOSITORY_NETWORK_IGNORED)
        if hosts:
            note("network", REPOSITORY_HOSTS_IGNORED)
        return SandboxRequest()
    return SandboxRequest(write, network, hosts)


def _network(value: object, note: Note) -> tuple[bool, tuple[str, ...]]:
    """(the whole network, the hosts to reach through the filter); a bad host is left out."""
    if isinstance(value, bool):
        return value, ()
    if not isinstance(value, list):
        note("network", f"expected true, false or a list of hosts; got {value!r}, the network stays off")
        return False, ()
    return False, host_entries(value, lambda message: note("network", message))


def _folders(value: object, note: Note) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        note("write", "expected a list of folder paths; ignored (the server writes its own folder only)")
        return ()
    return tuple(str(item) for item in value)
