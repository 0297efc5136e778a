"""How big real MCP servers' tool definitions are: the figures LevelCode's description and
definition caps (mcp/calls/definition_caps.py) were chosen from.

    uv run python bench/tool_definition_sizes.py [--dir DIR]... [--server NAME=COMMAND]... [--tools]

Connects to every server of the table below that it finds (a `node_modules/.bin` or a venv `bin`
under the repository or a `--dir`), plus any `--server 'name=command args'`, lists its tools and
prints per server (and with `--tools`, per tool): description length, whole definition length
(name + description + input schema as compact JSON), the longest nested description, and where
LevelCode's caps would bite. Then percentiles over all tools. Servers that need a browser or a
network to start are listed as skipped with the reason; tokens given to them are dummies.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import statistics
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from levelcode.cli.aio import event_loop_factory  # noqa: E402
from levelcode.core.errors import McpError  # noqa: E402
from levelcode.mcp.calls.catalog import build_catalog  # noqa: E402
from levelcode.mcp.calls.definition_caps import (  # noqa: E402
    DEFAULT_MAX_DEFINITION,
    DEFAULT_MAX_DESCRIPTION,
    definition_chars,
    nested_texts,
)
from levelcode.mcp.config.specs import Provenance, StdioServerSpec  # noqa: E402
from levelcode.mcp.launch.connect_options import ConnectOptions  # noqa: E402
from levelcode.mcp.live.connection import connect  # noqa: E402

USER = Provenance("user", "bench")
DUMMY = "dummy-token-for-listing-tools"
SCRATCH = Path(tempfile.gettempdir()) / "levelcode-bench-sizes"


@dataclass(frozen=True)
class Known:
    name: str
    binary: str  # looked up in node_modules/.bin or a venv's bin
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()


# The reference servers and popular ones, as their READMEs start them (dummy credentials).
KNOWN = (
    Known("sequential-thinking", "mcp-server-sequential-thinking"),
    Known("context7", "context7-mcp"),
    Known("chrome-devtools", "chrome-devtools-mcp"),
    Known("playwright", "playwright-mcp"),
    Known("notion", "notion-mcp-server", env=(("NOTION_TOKEN", DUMMY),)),
    Known("github", "mcp-server-github", env=(("GITHUB_PERSONAL_ACCESS_TOKEN", DUMMY),)),
    Known("everything", "mcp-server-everything"),
    Known("filesystem", "mcp-server-filesystem", (str(SCRATCH),)),
    Known("memory", "mcp-server-memory", env=(("MEMORY_FILE_PATH", str(SCRATCH / "memory.json")),)),
    Known("git", "mcp-server-git", ("--repository", str(ROOT))),
    Known("time", "mcp-server-time"),
    Known("fetch", "mcp-server-fetch"),
    Known("markitdown", "markitdown-mcp"),
)


@dataclass(frozen=True)
class ToolSize:
    server: str
    tool: str
    description: int
    definition: int
    longest_nested: int


def find_binary(name: str, dirs: Sequence[Path]) -> Path | None:
    for base in (ROOT, *dirs):
        for sub in ("node_modules/.bin", "venv/bin", ".venv/bin", "bin"):
            path = base / sub / name
            if path.exists():
                return path
    return None


def table(dirs: Sequence[Path], extra: Sequence[str]) -> tuple[list[StdioServerSpec], list[str]]:
    specs: list[StdioServerSpec] = []
    missing: list[str] = []
    for known in KNOWN:
        path = find_binary(known.binary, dirs)
        if path is None:
            missing.append(f"{known.name}: {known.binary} not installed")
            continue
        specs.append(StdioServerSpec(known.name, str(path), USER, known.args, known.env))
    for item in extra:
        name, _, command = item.partition("=")
        argv = shlex.split(command)
        specs.append(StdioServerSpec(name, argv[0], USER, tuple(argv[1:])))
    return specs, missing


def measure(server: str, raw: Mapping[str, object]) -> ToolSize:
    description = raw.get("description")
    text = description if isinstance(description, str) else ""
    schema = raw.get("inputSchema")
    nested = [len(t) for t in nested_texts(schema)]
    return ToolSize(
        server,
        str(raw.get("name")),
        len(text),
        definition_chars(str(raw.get("name")), text, schema),
        max(nested, default=0),
    )


async def list_tools(spec: StdioServerSpec) -> tuple[Mapping[str, object], ...]:
    SCRATCH.mkdir(exist_ok=True)
    options = ConnectOptions(workspace=SCRATCH, startup_timeout=60)
    connection = await connect(spec, options)
    try:
        return connection.tools
    finally:
        await connection.close()


def percentile(values: Sequence[int], share: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else 0


def print_server(
    name: str, sizes: Sequence[ToolSize], raw: Sequence[Mapping[str, object]], show: bool
) -> None:
    counts = build_catalog([(name, raw)]).counts[name]
    print(
        f"{name}: {len(sizes)} tools · description max {max(s.description for s in sizes):,} · "
        f"definition max {max(s.definition for s in sizes):,} (median "
        f"{statistics.median(s.definition for s in sizes):,.0f}) · longest nested "
        f"{max(s.longest_nested for s in sizes):,} · at LevelCode's caps: "
        f"{len(counts.cut_descriptions)} descriptions cut, {len(counts.trimmed_schemas)} schemas "
        f"trimmed, {len(counts.left_out)} left out"
    )
    if show:
        for s in sorted(sizes, key=lambda s: -s.definition):
            print(
                f"    {s.tool:<40} desc {s.description:>6,}  def {s.definition:>7,}"
                f"  nested {s.longest_nested:>5,}"
            )


def print_percentiles(sizes: Sequence[ToolSize]) -> None:
    print(f"\nall {len(sizes)} tools    p50     p90     p95     p99     max")
    for label, values in (
        ("description", [s.description for s in sizes]),
        ("definition", [s.definition for s in sizes]),
        ("longest nested", [s.longest_nested for s in sizes]),
    ):
        cells = "".join(f"{percentile(values, q):>8,}" for q in (0.5, 0.9, 0.95, 0.99, 1.0))
        print(f"  {label:<15}{cells}")
    print(f"\ncaps: description {DEFAULT_MAX_DESCRIPTION:,} · whole definition {DEFAULT_MAX_DEFINITION:,}")
    over_desc = [s for s in sizes if s.description > DEFAULT_MAX_DESCRIPTION]
    over_def = [s for s in sizes if s.definition > DEFAULT_MAX_DEFINITION]
    print(f"  descriptions over the cap: {', '.join(f'{s.server}/{s.tool}' for s in over_desc) or 'none'}")
    print(f"  definitions over the cap:  {', '.join(f'{s.server}/{s.tool}' for s in over_def) or 'none'}")


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--dir", action="append", type=Path, default=[], help="where more servers are installed"
    )
    parser.add_argument("--server", action="append", default=[], help="NAME=COMMAND ARGS (repeatable)")
    parser.add_argument("--tools", action="store_true", help="also print every tool")
    args = parser.parse_args()
    specs, missing = table(args.dir, args.server)
    everything: list[ToolSize] = []
    for spec in specs:
        try:
            raw = await list_tools(spec)
        except (McpError, OSError) as exc:
            missing.append(f"{spec.name}: did not start ({exc})")
            continue
        sizes = [measure(spec.name, tool) for tool in raw]
        if sizes:
            print_server(spec.name, sizes, raw, args.tools)
            everything.extend(sizes)
    if everything:
        print_percentiles(everything)
    for line in missing:
        print(f"skipped {line}")


if __name__ == "__main__":
    with asyncio.Runner(loop_factory=event_loop_factory()) as runner:
        runner.run(main())
