"""The CLI's one door to trust, `WorkspaceTrust`: cheap to build (the trust commands load no hub,
router or runtime), and the same door a running session asks (`McpRuntime.trust`), so an answer
given through either is what the other sees.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from levelcode.core.approvals import HeadlessApprover
from levelcode.mcp.config.tiers import McpConfig
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.trust_store import TrustStore
from levelcode.mcp.launch.workspace_trust import WorkspaceTrust
from levelcode.mcp.live.runtime import McpRuntime
from tests.mcp.launch.test_gate import repo_spec

TRUST_COMMANDS = ("trust_commands", "login", "remove", "manage")
BEHIND = ("levelcode.mcp.live.runtime", "levelcode.mcp.live.hub", "levelcode.mcp.calls.router")


def test_the_trust_commands_load_no_hub_router_or_runtime() -> None:
    """`mcp trust`, `revoke`, `login`, `get`'s and `remove`'s trust questions cost no more than the
    gate: their modules import neither the hub, the router nor the runtime."""
    imports = "; ".join(f"import levelcode.cli.mcp.{name}" for name in TRUST_COMMANDS)
    code = f"import sys; {imports}; print(' '.join(m for m in {BEHIND!r} if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert loaded.stdout.split() == []


async def test_the_runtime_asks_trust_through_the_same_door(tmp_path: Path) -> None:
    spec = repo_spec(tmp_path)
    store = TrustStore()
    store.approve(tmp_path, spec, launch_text(spec), store.review(tmp_path, spec).facts)
    runtime = McpRuntime(tmp_path, McpConfig((spec,)), HeadlessApprover(), store=TrustStore())
    try:
        assert runtime.trust.gate is runtime.gate
        assert runtime.trust.may_start_unasked(spec)
        assert (await runtime.revoke(spec.name)).was_approved
        assert WorkspaceTrust(tmp_path).approved_servers() == {}
        assert not runtime.trust.may_start_unasked(spec)
        assert runtime.trust.standing(runtime.reviews()).states == {spec.name: "never_approved"}
    finally:
        await runtime.close()
