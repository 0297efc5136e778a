"""Whether a stdio server runs in the sandbox, and with what: the one decision the spawn path, the
launch card and every view share.

Pure: the spec and, for a repository's server, the sandbox choice recorded with its approval in;
plain data out. Never probes for a sandbox and never builds a bwrap command line (the spawn path
does, mcp/launch/sandboxed_launch.py).

- The organisation's policy may require the sandbox (`mcpSandbox`): then every server it covers
  runs in it — yours with its entry's folders and hosts, or the defaults — and none is offered
  or started unconfined.
- Your own server runs in the sandbox only when its entry has `sandbox`, as written there.
- A repository's server runs as you approved it: sandboxed (writing its own folder, or the
  workspace as well) or unconfined — and sandboxed whatever the store says when its entry asks
  for the sandbox. In the sandbox it writes no folder it named itself and reaches no host it
  named itself.
- In the sandbox a server reaches the network only through the egress filter: the registry of
  the package launcher it is started with (npx → npm's, uvx → uv's and pip's indexes, as you
  configured them), and the hosts your own entry lists; `"network": true` in your entry gives it
  the whole network instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from levelcode.mcp.config.sandbox_entry import SandboxRequest
from levelcode.mcp.config.specs import ServerSpec, StdioServerSpec
from levelcode.mcp.launch.plan import expand_workspace_folder
from levelcode.policy.network_hosts import Registry, launcher_registry

if TYPE_CHECKING:  # the answers are imported only where a card is shown: not by the early spawn
    from levelcode.core.approvals import Answer, Choice

PURE = True

SandboxChoice = Literal["own", "workspace"]  # what "approve, sandboxed" recorded
SANDBOX_CHOICES: tuple[SandboxChoice, ...] = ("own", "workspace")
_ANSWER_CHOICES: dict[Choice, SandboxChoice] = {"sandboxed": "own", "sandboxed_workspace": "workspace"}

SANDBOXED_ANSWER = "approve, sandboxed: writes only its own folder, network only to its registry, no secrets"
WORKSPACE_ANSWER = "approve, sandboxed, and let it write the workspace (.git stays read-only)"
UNCONFINED_ANSWER = "approve, unconfined: it runs with all your permissions"


@dataclass(frozen=True)
class ServerBox:
    """How one server is confined. It always writes its own folder and a private /tmp."""

    write: tuple[str, ...] = ()  # more folders, as written in your entry
    workspace: bool = False  # the workspace is writable too
    network: bool = False
    # your entry asked, your answer on the card, or the organisation's policy requires it
    by: Literal["entry", "approval", "organisation"] = "entry"
    hosts: tuple[str, ...] = ()  # reached through the egress filter: your entry's list
    registry: Registry | None = None  # reached too: the registry of the launcher it starts with


def server_box(spec: ServerSpec, approved: SandboxChoice | None = None) -> ServerBox | None:
    """The server's confinement; None when it runs unconfined (or is not a local process).
    `approved`: the choice recorded with a repository server's approval (None: unconfined, or
    not approved yet)."""
    if not isinstance(spec, StdioServerSpec):
        return None
    registry = launcher_registry(spec.command)
    required = organisation_sandbox(spec) is not None
    if spec.provenance.trusted:
        request = spec.sandbox or (SandboxRequest() if required else None)
        if request is None:
            return None
        by: Literal["entry", "approval", "organisation"] = "entry" if spec.sandbox else "organisation"
        return ServerBox(request.write, False, request.network, by, request.hosts, registry)
    if approved is None and spec.sandbox is None and not required:
        return None
    by = "approval" if approved else ("entry" if spec.sandbox is not None else "organisation")
    return ServerBox(workspace=approved == "workspace", by=by, registry=registry)


def organisation_sandbox(spec: ServerSpec) -> str | None:
    """`the sandbox is required by your organisation's policy (FILE)` when it is; None otherwise."""
    return spec.organisation.sandbox if spec.organisation is not None else None


def sandbox_choice_of(answer: Choice) -> SandboxChoice | None:
    """What a launch card's answer records: "own", "workspace", or None (unconfined)."""
    return _ANSWER_CHOICES.get(answer)


def asks_for_sandbox(spec: ServerSpec) -> bool:
    """A repository's entry that asks to run in the sandbox, or a server the organisation's policy
    sandboxes: it is never started unconfined."""
    return isinstance(spec, StdioServerSpec) and (
        spec.sandbox is not None or organisation_sandbox(spec) is not None
    )


def why_sandboxed(spec: ServerSpec) -> str:
    """Why a server may run only in the sandbox: its entry, or the organisation's policy."""
    required = organisation_sandbox(spec)
    if required is not None and not (isinstance(spec, StdioServerSpec) and spec.sandbox is not None):
        return required
    return "its entry asks for the sandbox"


def launch_answers(spec: ServerSpec, *, sandbox_missing: bool) -> tuple[Answer, ...]:
    """The answers a repository's stdio server offers, "approve, sandboxed" first; () for the
    plain approve/deny (a remote server, or no sandbox on this machine)."""
    from levelcode.core.approvals import Answer

    if not isinstance(spec, StdioServerSpec) or sandbox_missing:
        return ()
    answers = [
        Answer("s", "sandboxed", SANDBOXED_ANSWER),
        Answer("w", "sandboxed_workspace", WORKSPACE_ANSWER),
    ]
    if not asks_for_sandbox(spec):
        answers.append(Answer("y", "once", UNCONFINED_ANSWER))
    return tuple(answers)


def box_folders(box: ServerBox, workspace: Path, home: Path) -> tuple[Path, ...]:
    """The folders beyond its own that the server may write: `~` and `${workspaceFolder}` filled
    in, a relative path taken from the workspace (as `cwd` is)."""
    folders = [workspace] if box.workspace else []
    for written in box.write:
        text = expand_workspace_folder(written, workspace)
        if text == "~" or text.startswith("~/"):
            text = str(home) + text[1:]
        folders.append(workspace / text)  # an absolute path replaces the workspace
    return tuple(folders)
