"""The layer map (DESIGN §4), read from the imports themselves. Load-bearing direction: an import
the map forbids must fail here — an upward import (mcp → agent, calls → live), a sideways one
(tools → mcp, cli.repl → cli.mcp), ui reaching past plain data, a cli subpackage reaching a
command at cli's top level, or two files that import each other (or any longer loop). Every import
counts, those inside functions (the lazy ones that keep start-up fast) and those for type checking
alike, so nothing can hide in a function body. What a pure module may do is
tests/test_purity.py's; the modules it names pure (`PURE = True`) are the `pure` of ui's row.

    cli                 may import anything: the entry, main.py's parsing, run, sandbox; and
                        what every command shares (printing, aio, parser_base, prompt_argument)
      cli.repl          anything but cli.mcp (and of cli's top level only what commands share)
      cli.mcp           anything but cli.repl (likewise)
      cli.start         anything but cli.repl and cli.mcp (likewise)
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
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterable

import pytest

from tests.support.module_imports import (
    PACKAGE,
    ModuleSource,
    imported_modules,
    is_package,
    module_name,
    package_sources,
    pure_modules,
    replaced,
    source_at,
)

ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"
LAYERS_MARKER = "<!-- layers:"

MCP_ORDER = ("registry", "live", "calls", "launch", "http", "stdio", "protocol", "config")
MCP = tuple(f"mcp.{part}" for part in MCP_ORDER)
CLI = tuple(f"cli.{init.parent.name}" for init in sorted((PACKAGE / "cli").glob("*/__init__.py")))
LAYERS = (
    "cli",
    *CLI,
    "ui",
    "agent",
    "providers",
    "tools",
    "mcp",
    *MCP,
    "sandbox",
    "platform",
    "policy",
    "core",
)


def anything_but(*excluded: str) -> frozenset[str]:
    return frozenset(LAYERS) - set(excluded)


# layer → the layers it may import (itself is always allowed)
ALLOWED: dict[str, frozenset[str]] = {
    "cli": frozenset({"*"}),
    "cli.repl": anything_but("cli.mcp"),
    "cli.mcp": anything_but("cli.repl"),
    "cli.start": anything_but("cli.repl", "cli.mcp"),
    "ui": frozenset({"agent", "platform", "policy", "core", "pure"}),  # "pure": the modules marked pure
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


def layer_of(module: str) -> str:
    """`levelcode.mcp.calls.policy` → `mcp.calls`; `levelcode.cli.repl.turns` → `cli.repl`;
    `levelcode.mcp` → `mcp`; `levelcode` → root."""
    parts = module.split(".")[1:]
    if not parts or parts[0] in ("__main__",):
        return "root"
    if parts[0] in ("mcp", "cli") and len(parts) > 1 and is_package(f"levelcode.{parts[0]}.{parts[1]}"):
        return f"{parts[0]}.{parts[1]}"
    return parts[0]


def violations_in(source: ModuleSource, pure: frozenset[str]) -> list[str]:
    """Every import in `source` its layer's row forbids (`pure`: the modules marked pure)."""
    source_layer = layer_of(source.module)
    allowed = ALLOWED[source_layer]
    found = []
    for line, target in imported_modules(source.text, source.package):
        if target != "levelcode" and not target.startswith("levelcode."):
            continue
        target_layer = layer_of(target)
        if target_layer in (source_layer, "root") or "*" in allowed or target_layer in allowed:
            continue
        if "pure" in allowed and target in pure:
            continue
        found.append(f"{source.where}:{line}: {source_layer} imports {target} ({target_layer})")
    return found


def all_violations(sources: list[ModuleSource]) -> list[str]:
    pure = pure_modules(sources)
    return [problem for source in sources for problem in violations_in(source, pure)]


def cli_commands(sources: Iterable[ModuleSource]) -> frozenset[str]:
    """The modules at cli's top level that reach a cli subpackage, directly or through others
    (main, run, the entry): commands, which no subpackage may import; the rest of cli's top level
    is what every command shares."""
    graph = import_graph(sources)
    top = {module for module in graph if layer_of(module) == "cli"}
    commands: set[str] = set()
    for module in top:
        seen, todo = set(), [module]
        while todo:
            for target in graph.get(todo.pop(), ()):
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
        if any(layer_of(reached) in CLI for reached in seen):
            commands.add(module)
    return frozenset(commands)


def commands_reached(sources: list[ModuleSource]) -> list[str]:
    """Every import of a command at cli's top level from inside a cli subpackage."""
    commands = cli_commands(sources)
    return [
        f"{source.where}:{line}: {layer_of(source.module)} imports {target}, a command"
        for source in sources
        if layer_of(source.module) in CLI
        for line, target in imported_modules(source.text, source.package)
        if target in commands
    ]


def import_graph(sources: Iterable[ModuleSource]) -> dict[str, set[str]]:
    """module → the modules of levelcode it imports (a package's `__init__` is not counted as
    imported by `from package import module`: it only hands the module on)."""
    graph: dict[str, set[str]] = {}
    for source in sources:
        targets = graph.setdefault(source.module, set())
        for _line, target in imported_modules(source.text, source.package):
            if target.startswith("levelcode.") and target != source.module and not is_package(target):
                targets.add(target)
    return graph


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


def documented_layers(text: str) -> dict[str, frozenset[str]]:
    """The layer table of docs/architecture.md: layer → what it may import ("anything": `*`,
    "anything but a, b": every layer but those, "nothing": none), read from the rows after the
    marker comment up to the first blank line."""
    lines = text.split(LAYERS_MARKER, 1)[1].splitlines()[1:]
    rows = [line for line in itertools.takewhile(str.strip, lines) if line.startswith("|")][2:]
    table: dict[str, frozenset[str]] = {}
    for row in rows:
        layer, may_import = (cell.strip() for cell in row.strip("|").split("|")[:2])
        table[layer] = _may_import(may_import)
    return table


def _may_import(cell: str) -> frozenset[str]:
    if cell == "anything":
        return frozenset({"*"})
    if cell == "nothing":
        return frozenset()
    if cell.startswith("anything but "):
        return anything_but(*(word.strip() for word in cell.removeprefix("anything but ").split(",")))
    return frozenset(word.strip() for word in cell.split(","))


def enforced_layers() -> dict[str, frozenset[str]]:
    return {layer: allowed for layer, allowed in ALLOWED.items() if layer != "root"}


def test_the_architecture_doc_draws_the_map_this_test_enforces() -> None:
    """docs/architecture.md's layer table is the one enforced here: a layer, or an arrow, that one
    has and the other lacks fails (levelcode/__init__ and __main__, `root`, are not a layer)."""
    assert documented_layers(ARCHITECTURE.read_text(encoding="utf-8")) == enforced_layers()


@pytest.mark.parametrize(
    ("row", "changed"),
    [
        ("| tools | sandbox, platform, policy, core |", "| tools | mcp, sandbox, platform, policy, core |"),
        ("| cli.repl | anything but cli.mcp |", "| cli.repl | anything |"),
        ("| cli.start | anything but cli.repl, cli.mcp |", "| cli.start | anything but cli.repl |"),
    ],
)
def test_a_doc_that_differs_from_the_map_is_caught(row: str, changed: str) -> None:
    """The comparison can fail: one arrow added to the doc's table (tools → mcp, cli.repl →
    anything, cli.start → cli.mcp) is a difference."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert row in text
    assert documented_layers(text.replace(row, changed)) != enforced_layers()


def test_every_import_points_down_the_layer_map() -> None:
    problems = all_violations(package_sources())
    assert problems == [], "imports the layer map forbids:\n" + "\n".join(problems)


def test_every_module_belongs_to_a_known_layer() -> None:
    unknown = {layer_of(module_name(p)) for p in PACKAGE.rglob("*.py")} - set(ALLOWED)
    assert unknown == set()


def test_a_new_cli_subpackage_needs_a_row() -> None:
    """A subpackage of cli is a layer of its own: one with no row in the map is unknown."""
    assert set(CLI) == {"cli.mcp", "cli.repl", "cli.start"}
    assert layer_of("levelcode.cli.repl.turns") == "cli.repl"
    assert layer_of("levelcode.cli.printing") == "cli"


def test_no_cli_subpackage_imports_a_command() -> None:
    """Of cli's top level a subpackage imports only what every command shares: never the entry,
    main.py or run.py, which reach the subpackages themselves."""
    sources = package_sources()
    assert {"levelcode.cli.main", "levelcode.cli.run", "levelcode.cli.entry"} <= cli_commands(sources)
    assert "levelcode.cli.printing" not in cli_commands(sources)
    problems = commands_reached(sources)
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize(
    ("planted", "code"),
    [
        ("cli/repl/turns.py", "from levelcode.cli import main"),
        ("cli/mcp/add.py", "from levelcode.cli.run import run_command"),
        ("cli/start/debug_log.py", "import levelcode.cli.entry"),
    ],
)
def test_a_subpackage_importing_a_command_is_caught(planted: str, code: str) -> None:
    changed = source_at(planted).changed(code)
    found = commands_reached(replaced(package_sources(), changed))
    assert any(changed.where in problem for problem in found), found


def test_no_two_modules_import_each_other() -> None:
    loops = cycles(import_graph(package_sources()))
    assert loops == [], "modules that import each other:\n" + "\n".join(" ⇄ ".join(loop) for loop in loops)


def test_the_mcp_parts_import_only_parts_below_them() -> None:
    for rank, part in enumerate(MCP):
        above = set(MCP[: rank + 1])
        assert not ALLOWED[part] & above - {part}, f"{part} may import a part above it"


def test_no_two_modules_under_mcp_share_a_name() -> None:
    names = [path.name for path in (PACKAGE / "mcp").rglob("*.py") if path.name != "__init__.py"]
    assert sorted({name for name in names if names.count(name) > 1}) == []


def test_every_mcp_package_says_what_it_owns_and_must_never_do() -> None:
    for init in sorted((PACKAGE / "mcp").rglob("__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert len(doc.splitlines()) >= 2, f"{init}: no docstring saying what it owns"
        assert "never" in doc.lower(), f"{init}: its docstring names nothing it must never do"


@pytest.mark.parametrize(
    ("planted", "code", "forbidden"),
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
        ("mcp/calls/router.py", "from levelcode.mcp.live.hub import McpHub", "mcp.calls imports"),
        ("mcp/launch/gate.py", "from levelcode.mcp.live import overview", "mcp.launch imports"),
        ("mcp/http/events.py", "from levelcode.mcp.stdio import framing", "mcp.http imports"),
        ("mcp/config/specs.py", "from levelcode.mcp.stdio import framing", "mcp.config imports"),
        ("providers/base.py", "from levelcode.tools import base", "providers imports levelcode.tools.base"),
        ("mcp/protocol/session.py", "from ..calls import naming", "mcp.protocol imports levelcode.mcp.calls"),
        ("cli/repl/turns.py", "from levelcode.cli.mcp import add", "cli.repl imports levelcode.cli.mcp.add"),
        (
            "cli/mcp/add.py",
            "from levelcode.cli.repl import turns",
            "cli.mcp imports levelcode.cli.repl.turns",
        ),
        ("cli/start/chat_parts.py", "from ..repl import face", "cli.start imports levelcode.cli.repl.face"),
        (
            "cli/start/light_start.py",
            "import levelcode.cli.mcp.dispatch",
            "cli.start imports levelcode.cli.mcp",
        ),
        (
            "platform/paths.py",
            "from levelcode.cli.start import light_start",
            "platform imports levelcode.cli.start",
        ),
    ],
)
def test_a_forbidden_import_is_caught(planted: str, code: str, forbidden: str) -> None:
    """The check can fail: a real module with one wrong import added inside a function body (where
    the lazy imports live) is reported."""
    sources = package_sources()
    pure = pure_modules(sources)
    original = source_at(planted)
    assert violations_in(original, pure) == []
    found = violations_in(original.changed(code), pure)
    assert any(forbidden in problem for problem in found), found


def test_ui_may_import_a_pure_module_of_mcp_only_while_it_is_marked() -> None:
    """ui's `pure` follows the marker: ui → mcp/live/overview passes while overview says `PURE =
    True`, and is an upward import once the marker is gone."""
    sources = package_sources()
    probe = source_at("ui/render.py").changed("from levelcode.mcp.live import overview")
    assert violations_in(probe, pure_modules(sources)) == []
    unmarked = pure_modules(sources) - {"levelcode.mcp.live.overview"}
    assert any("ui imports levelcode.mcp.live.overview" in p for p in violations_in(probe, unmarked))


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
    changed = source_at(planted).changed(code)
    found = cycles(import_graph(replaced(package_sources(), changed)))
    if loop is None:
        assert found == []
    else:
        assert any(changed.module in members and any(loop in m for m in members) for members in found), found
