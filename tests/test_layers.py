"""The layer map: imports only point down (DESIGN §4). Load-bearing direction: an import the map
forbids must fail this test — an upward import (mcp → agent), a sideways one (tools → mcp), or ui
reaching into mcp's internals. Every import counts, including those inside functions (the lazy
ones that keep start-up fast), so a forbidden dependency cannot hide in a function body.

    cli                 may import anything
    ui                  agent, mcp.gates and mcp.config (plain data), core
    agent               providers, tools, core
    providers | tools | mcp     core (tools and mcp also the sandbox); never agent, ui or cli
      mcp (top level)   connection, hub, router, runtime, stores: any mcp part
      mcp.stdio         mcp.protocol, mcp.config, sandbox
      mcp.http          mcp.protocol, mcp.config
      mcp.gates         mcp.config (pure: never a transport, never a process)
      mcp.protocol      nothing else of mcp
      mcp.config        nothing else of mcp
    sandbox             core
    core                nothing above it
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "levelcode"

# layer → the layers it may import (itself is always allowed)
ALLOWED: dict[str, frozenset[str]] = {
    "cli": frozenset({"*"}),
    "ui": frozenset({"agent", "mcp.live", "mcp.calls", "mcp.launch", "mcp.config", "core"}),
    "agent": frozenset({"providers", "tools", "core"}),
    "providers": frozenset({"core"}),
    "tools": frozenset({"sandbox", "core"}),
    "mcp": frozenset(
        {"mcp.live", "mcp.calls", "mcp.launch", "mcp.protocol", "mcp.stdio", "mcp.http", "mcp.config"}
    ),
    "mcp.live": frozenset(
        {"mcp.calls", "mcp.launch", "mcp.protocol", "mcp.stdio", "mcp.http", "mcp.config", "sandbox", "core"}
    ),
    "mcp.calls": frozenset(
        {"mcp.live", "mcp.launch", "mcp.protocol", "mcp.stdio", "mcp.http", "mcp.config", "sandbox", "core"}
    ),
    "mcp.launch": frozenset(
        {"mcp.live", "mcp.calls", "mcp.protocol", "mcp.stdio", "mcp.http", "mcp.config", "sandbox", "core"}
    ),
    "mcp.stdio": frozenset({"mcp.protocol", "mcp.config", "sandbox", "core"}),
    "mcp.http": frozenset({"mcp.protocol", "mcp.config", "core"}),
    "mcp.protocol": frozenset({"core"}),
    "mcp.config": frozenset({"core"}),
    "sandbox": frozenset({"core"}),
    "core": frozenset(),
    "root": frozenset({"*"}),  # levelcode/__init__.py, __main__.py
}
MCP_PARTS = ("live", "calls", "launch", "protocol", "stdio", "http", "config")


def layer_of(module: str) -> str:
    """`levelcode.mcp.calls.policy` → `mcp.calls`; `levelcode.mcp` → `mcp`; `levelcode` → root."""
    parts = module.split(".")[1:]
    if not parts or parts[0] in ("__main__",):
        return "root"
    if parts[0] == "mcp" and len(parts) > 2 and parts[1] in MCP_PARTS:
        return f"mcp.{parts[1]}"
    if parts[0] == "mcp" and len(parts) == 2 and parts[1] in MCP_PARTS:
        return f"mcp.{parts[1]}"
    return parts[0]


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, package: str) -> Iterator[tuple[int, str]]:
    """(line, module) for every import in `source`, at any depth; relative ones resolved against
    `package` (the package the module lives in)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}" if _is_module(f"{base}.{alias.name}") else base


def _is_module(dotted: str) -> bool:
    relative = Path(*dotted.split("."))
    root = PACKAGE.parent
    return (root / relative).with_suffix(".py").exists() or (root / relative / "__init__.py").exists()


def violations(path: Path) -> list[str]:
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    where = str(path.relative_to(PACKAGE.parent))
    return violations_in(where, module, package, path.read_text(encoding="utf-8"))


def violations_in(where: str, module: str, package: str, source: str) -> list[str]:
    source_layer = layer_of(module)
    allowed = ALLOWED[source_layer]
    found = []
    for line, target in imported_modules(source, package):
        if target != "levelcode" and not target.startswith("levelcode."):
            continue
        target_layer = layer_of(target)
        if target_layer in (source_layer, "root") or "*" in allowed or target_layer in allowed:
            continue
        found.append(f"{where}:{line}: {source_layer} imports {target} ({target_layer})")
    return found


def test_every_import_points_down_the_layer_map() -> None:
    problems = [problem for path in sorted(PACKAGE.rglob("*.py")) for problem in violations(path)]
    assert problems == [], "imports the layer map forbids:\n" + "\n".join(problems)


def test_every_module_belongs_to_a_known_layer() -> None:
    unknown = {layer_of(module_name(p)) for p in PACKAGE.rglob("*.py")} - set(ALLOWED)
    assert unknown == set()


@pytest.mark.parametrize(
    ("source", "code", "forbidden"),
    [
        (
            "mcp/live/hub.py",
            "from levelcode.agent.events import Notice",
            "mcp.live imports levelcode.agent.events",
        ),
        ("tools/plan.py", "import levelcode.mcp.calls.naming", "tools imports levelcode.mcp.calls.naming"),
        ("ui/render.py", "from levelcode.mcp.stdio import framing", "ui imports levelcode.mcp.stdio.framing"),
        ("core/paths.py", "from levelcode.ui.visible import visible", "core imports levelcode.ui.visible"),
        ("mcp/config/specs.py", "from levelcode.mcp.stdio import framing", "mcp.config imports"),
        ("providers/base.py", "from levelcode.tools import base", "providers imports levelcode.tools.base"),
        ("mcp/protocol/session.py", "from ..calls import naming", "mcp.protocol imports levelcode.mcp.calls"),
    ],
)
def test_a_forbidden_import_is_caught(source: str, code: str, forbidden: str) -> None:
    """The check can fail: a real module with one wrong import added inside a function body (where
    the lazy imports live) is reported."""
    path = PACKAGE / source
    module = module_name(path)
    text = path.read_text(encoding="utf-8") + f"\n\ndef _probe() -> None:\n    {code}\n"
    assert violations(path) == []
    found = violations_in(source, module, module.rpartition(".")[0], text)
    assert any(forbidden in problem for problem in found), found
