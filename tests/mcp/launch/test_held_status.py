"""Why a server does not start unasked is one rule, `held_status` (mcp/launch/status.py), which the
launch gate, the hub and every view ask. Load-bearing direction: a blocked, disabled, unapproved,
changed or denied server is held with the same status by the gate, the hub and the summary every
view shows, and no other module makes such a status itself (a copy of the rule is caught). The
second corpus: the user's own server and an approved one are held by nothing, and start."""

from __future__ import annotations

import ast
import dataclasses
import sys
from pathlib import Path

import pytest

from levelcode.core.approvals import HeadlessApprover
from levelcode.mcp.calls.catalog import Catalog
from levelcode.mcp.config.specs import OrgRule, Provenance, StdioServerSpec
from levelcode.mcp.config.tiers import McpConfig
from levelcode.mcp.launch.gate import LaunchGate
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.status import NOT_STARTED, ServerStatus, held_status
from levelcode.mcp.launch.trust_store import TrustStore
from levelcode.mcp.live.overview import summarize
from levelcode.mcp.live.session_hub import make_hub
from tests.support.servers import FAULT_SERVER

PACKAGE = Path(__file__).resolve().parents[3] / "levelcode"
BLOCKED = OrgRule(blocked="blocked by your organisation's policy (/etc/levelcode/managed.json)")
HELD_PHASES = ("blocked", "disabled", "waiting_approval")

# (case, tier, what the trust store holds for its launch, the entry's changes) → the status held
CASES = [
    ("own", "user", None, {}, None),
    ("own, disabled", "user", None, {"disabled": True}, ServerStatus("disabled")),
    ("own, blocked", "user", None, {"organisation": BLOCKED}, ServerStatus("blocked", BLOCKED.blocked)),
    ("repository, approved", "workspace", "approved", {}, None),
    ("repository, never approved", "workspace", None, {}, ServerStatus("waiting_approval")),
    ("repository, changed", "workspace", "other launch", {}, ServerStatus("waiting_approval")),
    ("repository, denied", "workspace", "denied", {}, ServerStatus("denied")),
    (
        "repository, approved, off in a profile",
        "workspace",
        "approved",
        {"disabled": True, "disabled_by": "not in profile 'web'"},
        ServerStatus("disabled", "not in profile 'web'"),
    ),
    (
        "repository, denied, blocked",
        "workspace",
        "denied",
        {"organisation": BLOCKED},
        ServerStatus("blocked", BLOCKED.blocked),
    ),
]


def _server(workspace: Path, tier: str, stored: str | None, changes: dict[str, object]) -> StdioServerSpec:
    """The server, with its launch approved, denied or approved as another launch in the store."""
    (workspace / "server.py").write_text(FAULT_SERVER.read_text())
    provenance = Provenance("workspace" if tier == "workspace" else "user", str(workspace / ".mcp.json"))
    spec = StdioServerSpec("s", sys.executable, provenance, args=("server.py",))
    store = TrustStore()
    if stored == "other launch":
        other = dataclasses.replace(spec, args=("other.py",))
        store.approve(workspace, other, launch_text(other), store.review(workspace, other).facts)
    elif stored == "approved":
        store.approve(workspace, spec, launch_text(spec), store.review(workspace, spec).facts)
    elif stored == "denied":
        store.deny(workspace, spec, launch_text(spec), store.review(workspace, spec).facts)
    return dataclasses.replace(spec, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(("case", "tier", "stored", "changes", "held"), CASES, ids=[c[0] for c in CASES])
async def test_the_gate_the_hub_and_the_views_hold_a_server_by_the_one_rule(
    case: str,
    tier: str,
    stored: str | None,
    changes: dict[str, object],
    held: ServerStatus | None,
    tmp_path: Path,
) -> None:
    spec = _server(tmp_path, tier, stored, changes)
    review = TrustStore().review(tmp_path, spec) if tier == "workspace" else None
    trust = review.state if review is not None else None
    assert held_status(spec, trust) == held
    (verdict,) = (await LaunchGate(tmp_path, TrustStore()).admit([spec], HeadlessApprover())).verdicts
    assert (verdict.starts, verdict.held) == (held is None, held)
    (summary,) = summarize(McpConfig((spec,)), {}, {"s": trust} if trust else {}, Catalog())
    assert summary.status == (held or NOT_STARTED)
    if held is not None and held.phase in ("blocked", "disabled"):  # a caller that skipped the gate
        hub = make_hub(tmp_path)
        hub.begin([spec])
        assert hub.statuses() == {"s": held}


def held_statuses_made(where: str, source: str) -> list[str]:
    """Every `ServerStatus("blocked" | "disabled" | "waiting_approval", …)` written in `source`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args):
            continue
        phase = node.args[0]
        if node.func.id == "ServerStatus" and isinstance(phase, ast.Constant) and phase.value in HELD_PHASES:
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_but_the_rules_own_makes_a_held_status() -> None:
    rule = PACKAGE / "mcp" / "launch" / "status.py"
    made = [
        problem
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != rule
        for problem in held_statuses_made(
            str(path.relative_to(PACKAGE.parent)), path.read_text(encoding="utf-8")
        )
    ]
    assert made == [], "a held status made outside held_status:\n" + "\n".join(made)
    planted = 'def held(spec):\n    return ServerStatus("waiting_approval") if spec.disabled else None\n'
    assert held_statuses_made("planted.py", planted) != []
