"""The layer map (DESIGN §4), read from the imports themselves. Load-bearing direction: an import
the map forbids must fail here — an upward import (mcp → agent, calls → live), a sideways one
(tools → mcp), ui reaching past plain data, two files that import each other (or any longer loop),
or an OS module in a pure module. Every import counts, those inside functions (the lazy ones that
keep start-up fast) and those for type checking alike, so nothing can hide in a function body.

    cli                 may import anything
    ui                  agent, platform, policy, core, and of mcp only its pure modules (plain data)
    agent               providers, tools, platform, policy, core
    providers | tools | mcp     policy, core (tools and mcp also the sandbox and platform — but not
                                the registry and protocol, which do no I/O of their own); never
                                agent, ui or cli
      mcp.registry      finding and adding servers from an MCP Registry (its answers, the entry)
      mcp.live          what is running now: hub, connection, runtime, early start, transports
      mcp.calls         one tool call's way: router, policy, call card, catalog, deferral
      mcp.launch        what may run and how: the launch gate, inspection, trust, sandbox box
      mcp.http          Streamable HTTP, legacy SSE, OAuth
      mcp.stdio         spawn, framing, reaping, watchdog
      mcp.protocol      JSON-RPC, the session, handshake, results
      mcp.config        the two tiers as plain data
    sandbox             platform, policy, core
    platform            policy, core: files, processes, state folders, workspace identity
    policy              core: the settings' shape, the organisation's policy, host rules
    core                nothing above it: the vocabulary

Inside mcp a part imports only parts below it in that order (MCP_ORDER), and fewer than that
where it has no business (http and stdio never reach each other or anything above protocol).

Pure modules (PURE) take plain data and return plain data: they import none of `os`,
`subprocess`, `socket`, `asyncio`. They are, precisely: core, every module of it (the
vocabulary); policy, every module of it (the settings' shape, the organisation's policy, host
rules); config's parsing (every module of mcp/config but files.py, the edge that reads the files); the
rules of calls (every module of mcp/calls but router.py, which asks and calls, and allow_store.py,
which writes the answers kept); the rules of launch (plan, entries, interpreters, trust,
server_box, status, card_summary, launch_card — not the gate, the trust store or the inspection,
which read files); the registry's documents and rules (every module of mcp/registry but
client.py, which asks the registry over HTTP); live/overview.py (the summary every view
shows); and protocol's messages (jsonrpc, content, media, results, limits — not the session,
which waits on the loop).
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "levelcode"
ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"
LAYERS_MARKER = "<!-- layers:"

MCP_ORDER = ("registry", "live", "calls", "launch", "http", "stdio", "protocol", "config")
MCP = tuple(f"mcp.{part}" for part in MCP_ORDER)

# layer → the layers it may import (itself is always allowed)
ALLOWED: dict[str, frozenset[str]] = {
    "cli": frozenset({"*"}),
    "ui": frozenset({"agent", "platform", "policy", "core", "pure"}),  # "pure": the modules in PURE
    "agent": frozenset({"providers", "tools", "platform", "policy", "core"}),
    "providers": frozenset({"policy", "core"}),
    "tools": frozenset({"sandbox", "platform", "policy", "core"}),
    "mcp": frozenset(MCP),  # levelcode/mcp/__init__.py
    "mcp.registry": frozenset({"mcp.launch", "mcp.config", "policy", "core"}),
    "mcp.live": frozenset({*MCP[2:], "sandbox", "platform", "policy", "core"}),
    "mcp.calls": frozenset({"mcp.launch", "mcp.protocol", "mcp.config", "platform", "policy", "core"}),
    "mcp.launch": frozenset(
        {"mcp.stdio", "mcp.protocol", "mcp.config", "sandbox", "platform", "policy", "core"}
    ),
    "mcp.http": frozenset({"mcp.protocol", "mcp.config", "platform", "policy", "core"}),
    "mcp.stdio": frozenset({"mcp.protocol", "mcp.config", "sandbox", "platform", "policy", "core"}),
    "mcp.protocol": frozenset({"policy", "core"}),
    "mcp.config": frozenset({"platform", "policy", "core"}),
    "sandbox": frozenset({"platform", "policy", "core"}),
    "platform": frozenset({"policy", "core"}),
    "policy": frozenset({"core"}),
    "core": frozenset(),
    "root": frozenset({"*"}),  # levelcode/__init__.py, __main__.py
}

OS_MODULES = frozenset({"os", "subprocess", "socket", "asyncio"})
PURE: frozenset[str] = frozenset(
    {
        *(
            f"levelcode.{package}.{path.stem}"
            for package in ("core", "policy")
            for path in (PACKAGE / package).glob("*.py")
            if path.stem != "__init__"
        ),
        *(
            f"levelcode.mcp.config.{path.stem}"
            for path in (PACKAGE / "mcp" / "config").glob("*.py")
            if path.stem not in ("__init__", "files")
        ),
        *(
            f"levelcode.mcp.calls.{path.stem}"
            for path in (PACKAGE / "mcp" / "calls").glob("*.py")
            if path.stem not in ("__init__", "router", "allow_store")
        ),
        *(
            f"levelcode.mcp.launch.{name}"
            for name in (
                "plan",
                "entries",
                "interpreters",
                "trust",
                "server_box",
                "status",
                "card_summary",
                "launch_card",
            )
        ),
        *(
            f"levelcode.mcp.registry.{name}"
            for name in ("documents", "rules", "inputs", "entry", "remote_entry")
        ),
        "levelcode.mcp.live.overview",
        *(f"levelcode.mcp.protocol.{name}" for name in ("jsonrpc", "content", "media", "results", "limits")),
    }
)


def layer_of(module: str) -> str:
    """`levelcode.mcp.calls.policy` → `mcp.calls`; `levelcode.mcp` → `mcp`; `levelcode` → root."""
    parts = module.split(".")[1:]
    if not parts or parts[0] in ("__main__",):
        return "root"
    if parts[0] == "mcp" and len(parts) > 1 and parts[1] in MCP_ORDER:
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


def _source_of(path: Path) -> tuple[str, str, str, str]:
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    return str(path.relative_to(PACKAGE.parent)), module, package, path.read_text(encoding="utf-8")


def violations(path: Path) -> list[str]:
    return violations_in(*_source_of(path))


def violations_in(where: str, module: str, package: str, source: str) -> list[str]:
    source_layer = layer_of(module)
    allowed = ALLOWED[source_layer]
    found = []
    for line, target in imported_modules(source, package):
        if module in PURE and target.split(".")[0] in OS_MODULES:
            found.append(f"{where}:{line}: pure module imports {target}")
            continue
        if target != "levelcode" and not target.startswith("levelcode."):
            continue
        target_layer = layer_of(target)
        if target_layer in (source_layer, "root") or "*" in allowed or target_layer in allowed:
            continue
        if "pure" in allowed and target in PURE:
            continue
        found.append(f"{where}:{line}: {source_layer} imports {target} ({target_layer})")
    return found


def import_graph(sources: Iterable[tuple[str, str, str]]) -> dict[str, set[str]]:
    """module → the modules of levelcode it imports (a package's `__init__` is not counted as
    imported by `from package import module`: it only hands the module on)."""
    graph: dict[str, set[str]] = {}
    for module, package, source in sources:
        targets = graph.setdefault(module, set())
        for _line, target in imported_modules(source, package):
            if target.startswith("levelcode.") and target != module and not _is_package(target):
                targets.add(target)
    return graph


def _is_package(dotted: str) -> bool:
    return (PACKAGE.parent / Path(*dotted.split(".")) / "__init__.py").exists()


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every set of modules that import each other, directly or round a longer loop (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            loop = []
            while True:
                member = stack.pop()
                loop.append(member)
                if member == node:
                    break
            if len(loop) > 1:
                found.append(sorted(loop))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _package_sources() -> list[tuple[str, str, str]]:
    return [_source_of(path)[1:] for path in sorted(PACKAGE.rglob("*.py"))]


def documented_layers(text: str) -> dict[str, frozenset[str]]:
    """The layer table of docs/architecture.md: layer → what it may import ("anything": `*`,
    "nothing": none), read from the rows after the marker comment up to the first blank line."""
    lines = text.split(LAYERS_MARKER, 1)[1].splitlines()[1:]
    rows = [line for line in itertools.takewhile(str.strip, lines) if line.startswith("|")][2:]
    table: dict[str, frozenset[str]] = {}
    for row in rows:
        layer, may_import = (cell.strip() for cell in row.strip("|").split("|")[:2])
        words = {word.strip() for word in may_import.split(",")}
        table[layer] = frozenset({"*"} if words == {"anything"} else set() if words == {"nothing"} else words)
    return table


def test_the_architecture_doc_draws_the_map_this_test_enforces() -> None:
    """docs/architecture.md's layer table is the one enforced here: a layer, or an arrow, that one
    has and the other lacks fails (levelcode/__init__ and __main__, `root`, are not a layer)."""
    enforced = {layer: allowed for layer, allowed in ALLOWED.items() if layer != "root"}
    assert documented_layers(ARCHITECTURE.read_text(encoding="utf-8")) == enforced


def test_a_doc_that_differs_from_the_map_is_caught() -> None:
    """The comparison can fail: one arrow added to the doc's table (tools → mcp) is a difference."""
    text = ARCHITECTURE.read_text(encoding="utf-8").replace(
        "| tools | sandbox, platform, policy, core |", "| tools | mcp, sandbox, platform, policy, core |"
    )
    enforced = {layer: allowed for layer, allowed in ALLOWED.items() if layer != "root"}
    assert documented_layers(text) != enforced
    assert documented_layers(text)["tools"] == {"mcp", "sandbox", "platform", "policy", "core"}


def test_every_import_points_down_the_layer_map() -> None:
    problems = [problem for path in sorted(PACKAGE.rglob("*.py")) for problem in violations(path)]
    assert problems == [], "imports the layer map forbids:\n" + "\n".join(problems)


def test_every_module_belongs_to_a_known_layer() -> None:
    unknown = {layer_of(module_name(p)) for p in PACKAGE.rglob("*.py")} - set(ALLOWED)
    assert unknown == set()


def test_no_two_modules_import_each_other() -> None:
    loops = cycles(import_graph(_package_sources()))
    assert loops == [], "modules that import each other:\n" + "\n".join(" ⇄ ".join(loop) for loop in loops)


def test_the_mcp_parts_import_only_parts_below_them() -> None:
    for rank, part in enumerate(MCP):
        above = set(MCP[: rank + 1])
        assert not ALLOWED[part] & above - {part}, f"{part} may import a part above it"


def test_every_pure_module_exists() -> None:
    assert {module for module in PURE if not _is_module(module)} == set()


def test_no_two_modules_under_mcp_share_a_name() -> None:
    names = [path.name for path in (PACKAGE / "mcp").rglob("*.py") if path.name != "__init__.py"]
    assert sorted({name for name in names if names.count(name) > 1}) == []


def test_every_mcp_package_says_what_it_owns_and_must_never_do() -> None:
    for init in sorted((PACKAGE / "mcp").rglob("__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert len(doc.splitlines()) >= 2, f"{init}: no docstring saying what it owns"
        assert "never" in doc.lower(), f"{init}: its docstring names nothing it must never do"


@pytest.mark.parametrize(
    ("source", "code", "forbidden"),
    [
        (
            "mcp/live/hub.py",
            "from levelcode.agent.events import Notice",
            "mcp.live imports levelcode.agent.events",
        ),
        ("tools/plan.py", "import levelcode.mcp.calls.naming", "tools imports levelcode.mcp.calls.naming"),
        ("ui/render.py", "from levelcode.mcp.live import hub", "ui imports levelcode.mcp.live.hub"),
        ("ui/render.py", "from levelcode.mcp.launch import gate", "ui imports levelcode.mcp.launch.gate"),
        ("core/progress.py", "from levelcode.ui.visible import visible", "core imports levelcode.ui.visible"),
        (
            "core/outcome.py",
            "from levelcode.platform.spill_files import SpillFiles",
            "core imports levelcode.platform.spill_files",
        ),
        (
            "policy/settings.py",
            "from levelcode.platform import paths",
            "policy imports levelcode.platform.paths",
        ),
        (
            "platform/paths.py",
            "from levelcode.sandbox import policy",
            "platform imports levelcode.sandbox.policy",
        ),
        (
            "providers/base.py",
            "from levelcode.platform import paths",
            "providers imports levelcode.platform.paths",
        ),
        ("policy/network_hosts.py", "import socket", "pure module imports socket"),
        ("core/json_text.py", "import os", "pure module imports os"),
        ("mcp/calls/router.py", "from levelcode.mcp.live.hub import McpHub", "mcp.calls imports"),
        ("mcp/launch/gate.py", "from levelcode.mcp.live import overview", "mcp.launch imports"),
        ("mcp/http/events.py", "from levelcode.mcp.stdio import framing", "mcp.http imports"),
        ("mcp/config/specs.py", "from levelcode.mcp.stdio import framing", "mcp.config imports"),
        ("providers/base.py", "from levelcode.tools import base", "providers imports levelcode.tools.base"),
        ("mcp/protocol/session.py", "from ..calls import naming", "mcp.protocol imports levelcode.mcp.calls"),
        ("mcp/calls/policy.py", "import os", "pure module imports os"),
        ("mcp/config/specs.py", "import subprocess", "pure module imports subprocess"),
        ("mcp/launch/trust.py", "from socket import socket", "pure module imports socket"),
        ("core/messages.py", "import asyncio", "pure module imports asyncio"),
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


@pytest.mark.parametrize(
    ("planted", "code", "loop"),
    [
        ("mcp/stdio/framing.py", "from levelcode.mcp.stdio import pipe_transport", "framing"),
        ("core/outcome.py", "from levelcode.core.errors import McpError", None),
        (
            "mcp/http/wire.py",
            "from levelcode.mcp.http.streamable import StreamableHttpTransport",
            "streamable",
        ),
    ],
)
def test_a_planted_cycle_is_caught(planted: str, code: str, loop: str | None) -> None:
    """The cycle check can fail: one import added back up a chain that already runs the other
    way (pipe_transport imports framing; streamable imports wire) closes a loop, and is found;
    an import that closes none (outcome → errors) is not reported."""
    sources = _package_sources()
    module = module_name(PACKAGE / planted)
    changed = [
        (name, package, source + f"\n\ndef _probe() -> None:\n    {code}\n" if name == module else source)
        for name, package, source in sources
    ]
    found = cycles(import_graph(changed))
    if loop is None:
        assert found == []
    else:
        assert any(module in members and any(loop in m for m in members) for members in found), found
