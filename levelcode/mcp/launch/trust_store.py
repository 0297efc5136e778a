"""The trust store (gate G1): which launches the user approved, per workspace and server name.

Maps the workspace's real path + server name → the launch fingerprint that was approved, and
beside it the fingerprint of the text alone, the resolved program and each workspace file's
digest, so that a change can be named ("server.py changed"), plus the literal command and whether
it runs in the sandbox (the user's answer: its own folder, or the workspace too); and the
tools the user answered "always" for while that launch was approved (gate G2: each with the
definition it covers). A new approval replaces the entry, so it starts with no tool allowances.
Beside the approvals, the launches the user denied (their fingerprints, under "denials"): such a
launch is not asked about again until the user asks (`levelcode mcp trust`, which forgets the
denial) or it changes; an approval forgets it too.
Written atomically with mode 0600 under a lock, so two LevelCode processes approving at once both
land. A corrupt or unreadable store means nothing is trusted — fail closed — with a warning; the
next approval sets the bad file aside and starts anew.
"""

from __future__ import annotations

import contextlib
import datetime
import os
from collections.abc import Callable, Mapping
from pathlib import Path

from levelcode.mcp.config.allow_rules import AllowRule, ToolDefinition, parse_allow_rule
from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.launch.inspection import inspect_launch
from levelcode.mcp.launch.server_box import SANDBOX_CHOICES, SandboxChoice
from levelcode.mcp.launch.trust import (
    ApprovedLaunch,
    LaunchFacts,
    LaunchReview,
    TrustState,
    approved_launch,
    check_trust,
    launch_fingerprint,
    trust_state,
)
from levelcode.platform import paths
from levelcode.platform.json_store import JsonDoc, UnreadableFile, locked, read_json_object, write_atomically

STORE_VERSION = 1
APPROVALS = "workspaces"  # workspace → server → the approved launch
DENIALS = "denials"  # workspace → server → the launch the user said no to


def workspace_key(workspace: Path) -> str:
    return os.path.realpath(workspace)


class TrustStore:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or paths.trust_store_path()
        self.warning: str | None = None
        self._doc = self._read()

    def _read(self) -> JsonDoc:
        try:
            doc = read_json_object(self.path)
        except UnreadableFile as exc:
            self.warning = (
                f"the trust store {self.path} {exc}; no repository server is trusted until approved again"
            )
            return {}
        if not isinstance(doc.get("workspaces", {}), dict):
            self.warning = (
                f"the trust store {self.path} has an unexpected shape; no repository server is trusted"
            )
            return {}
        return doc

    def _entries(self, doc: JsonDoc, workspace: Path, part: str = APPROVALS) -> dict[str, object]:
        workspaces = doc.get(part)
        entries = workspaces.get(workspace_key(workspace)) if isinstance(workspaces, dict) else None
        return entries if isinstance(entries, dict) else {}

    def recorded(self, workspace: Path, server: str) -> ApprovedLaunch | None:
        entry = self._entries(self._doc, workspace).get(server)
        if not isinstance(entry, dict) or not isinstance(entry.get("fingerprint"), str):
            return None
        command, program, files = entry.get("command"), entry.get("program"), entry.get("files")
        sandbox = entry.get("sandbox")
        return ApprovedLaunch(
            entry["fingerprint"],
            command if isinstance(command, str) else None,
            program if isinstance(program, str) else None,
            {str(k): v for k, v in files.items() if isinstance(v, str)} if isinstance(files, dict) else {},
            next((choice for choice in SANDBOX_CHOICES if choice == sandbox), None),
            imports=entry.get("imports") is True,
        )

    def denial(self, workspace: Path, server: str) -> str | None:
        """The fingerprint of the launch the user denied for `server` here, if any."""
        entry = self._entries(self._doc, workspace, DENIALS).get(server)
        fingerprint = entry.get("fingerprint") if isinstance(entry, dict) else None
        return fingerprint if isinstance(fingerprint, str) else None

    def review(
        self, workspace: Path, spec: ServerSpec, environ: Mapping[str, str] | None = None
    ) -> LaunchReview:
        """The launch as it is on disk now (repository servers: program and files), checked."""
        facts = inspect_launch(spec, workspace, os.environ if environ is None else environ)
        recorded, denied = self.recorded(workspace, spec.name), self.denial(workspace, spec.name)
        return LaunchReview(spec, facts, check_trust(spec, facts, recorded, denied))

    def state(self, workspace: Path, spec: ServerSpec) -> TrustState:
        return self.review(workspace, spec).state

    def sandbox_choice(self, workspace: Path, spec: ServerSpec) -> SandboxChoice | None:
        """How the user approved the server here: sandboxed ("own", "workspace") or unconfined
        (None, also when it is not approved)."""
        recorded = self.recorded(workspace, spec.name)
        return recorded.sandbox if recorded is not None else None

    def approved_servers(self, workspace: Path) -> dict[str, str]:
        """server name → the launch text recorded when it was approved."""
        entries = self._entries(self._doc, workspace)
        return {
            name: str(entry.get("launch", "")) for name, entry in entries.items() if isinstance(entry, dict)
        }

    def tool_allowances(
        self, workspace: Path, spec: ServerSpec, *, state: TrustState | None = None
    ) -> dict[str, AllowRule]:
        """server tool name → the rule recorded by "always", while exactly this launch is approved
        (`state`: as just checked; else its files are hashed again now)."""
        if (state or self.state(workspace, spec)) != "approved":
            return {}
        entry = self._entries(self._doc, workspace).get(spec.name)
        tools = entry.get("tools") if isinstance(entry, dict) else None
        if not isinstance(tools, dict):
            return {}
        rules = {str(tool): parse_allow_rule(raw) for tool, raw in tools.items()}
        return {tool: rule for tool, rule in rules.items() if isinstance(rule, AllowRule)}

    def allow_tool(self, workspace: Path, spec: ServerSpec, tool: str, definition: ToolDefinition) -> bool:
        """Record "always" for one tool inside the server's approval here; False (nothing written)
        when exactly this launch is not approved any more."""
        facts = inspect_launch(spec, workspace, os.environ)
        recorded: list[bool] = []

        def record(doc: JsonDoc) -> None:
            entry = self._workspace_entries(doc, workspace).get(spec.name)
            fingerprint = entry.get("fingerprint") if isinstance(entry, dict) else None
            approved = isinstance(entry, dict) and trust_state(spec, fingerprint, facts) == "approved"
            if isinstance(entry, dict) and approved:
                tools = entry.get("tools")
                tools = entry["tools"] = tools if isinstance(tools, dict) else {}
                tools[tool] = AllowRule("allow", definition).as_json()
            recorded.append(approved)

        self._update(record)
        return recorded[0]

    def approve(
        self,
        workspace: Path,
        spec: ServerSpec,
        launch_text: str,
        facts: LaunchFacts | None = None,
        *,
        sandbox: SandboxChoice | None = None,
    ) -> None:
        """Record `spec` with the facts the user was shown (found now, when not given), and how it
        runs: in the sandbox (`sandbox`), or unconfined (None)."""
        if facts is None:
            facts = inspect_launch(spec, workspace, os.environ)
        approved = approved_launch(spec, facts, sandbox)
        entry: dict[str, object] = {
            "fingerprint": approved.fingerprint,
            "command": approved.command,
            "program": approved.program,
            "files": dict(approved.files),
            "imports": True,  # the files include what it can import (older approvals did not)
            "launch": launch_text,
            "approvedAt": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        }
        if sandbox is not None:
            entry["sandbox"] = sandbox

        def record(doc: JsonDoc) -> None:
            self._workspace_entries(doc, workspace)[spec.name] = entry
            self._workspace_entries(doc, workspace, DENIALS).pop(spec.name, None)

        self._update(record)

    def deny(self, workspace: Path, spec: ServerSpec, launch_text: str, facts: LaunchFacts | None) -> None:
        """Remember that the user said no to exactly this launch (`facts`: those they were shown)."""
        entry: dict[str, object] = {
            "fingerprint": launch_fingerprint(spec, facts),
            "launch": launch_text,
            "deniedAt": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        }

        def record(doc: JsonDoc) -> None:
            self._workspace_entries(doc, workspace, DENIALS)[spec.name] = entry

        self._update(record)

    def forget_denial(self, workspace: Path, server: str) -> bool:
        """Ask about `server` again here; whether a denial was remembered."""
        if self.denial(workspace, server) is None:  # as read when this store was opened
            return False
        removed: list[object] = []

        def forget(doc: JsonDoc) -> None:
            removed.append(self._workspace_entries(doc, workspace, DENIALS).pop(server, None))

        self._update(forget)
        return removed[0] is not None

    def revoke(self, workspace: Path, server: str) -> bool:
        """Forget one approval; whether there was one (counted on the file as it is now)."""
        removed: list[object] = []

        def forget(doc: JsonDoc) -> None:
            removed.append(self._workspace_entries(doc, workspace).pop(server, None))

        self._update(forget)
        return removed[0] is not None

    def revoke_all(self, workspace: Path) -> int:
        """Forget every approval for this workspace; how many there were."""
        counted: list[int] = []

        def clear(doc: JsonDoc) -> None:
            entries = self._workspace_entries(doc, workspace)
            counted.append(len(entries))
            entries.clear()

        self._update(clear)
        return counted[0]

    def _workspace_entries(self, doc: JsonDoc, workspace: Path, part: str = APPROVALS) -> dict[str, object]:
        workspaces = doc.get(part)
        if not isinstance(workspaces, dict):
            workspaces = doc[part] = {}
        entries = workspaces.get(workspace_key(workspace))
        if not isinstance(entries, dict):
            entries = workspaces[workspace_key(workspace)] = {}
        return entries

    def _update(self, change: Callable[[JsonDoc], None]) -> None:
        with locked(self.path):
            try:
                doc = read_json_object(self.path)
            except UnreadableFile:
                doc = {"workspaces": None}
            if not isinstance(doc.get("workspaces", {}), dict):  # unreadable or the wrong shape
                self._set_aside()
                doc = {}
            doc.setdefault("workspaces", {})
            doc["version"] = STORE_VERSION
            change(doc)
            write_atomically(self.path, doc, mode=0o600)
            self._doc, self.warning = doc, None

    def _set_aside(self) -> None:
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S.%f") + f"-{os.getpid()}"
        with contextlib.suppress(OSError):
            self.path.replace(self.path.with_name(f"{self.path.name}.unreadable-{stamp}"))
