"""What MCP tools cost in the model's context, and what the prompt cache saves, measured through a
real LevelCode session against the fake Anthropic API (tests/fakes/fake_anthropic.py).

    uv run python bench/context_bench.py [--quick] [--shapes FILE]
    uv run python bench/context_bench.py --record FILE [--dir DIR]...

1. Tokens of MCP tool definitions in the first request, deferral off (`toolSearch: "never"`) and
   on (`"auto"`: over 10 % of a 200,000-token window, Claude's), for: the real server-everything;
   the 13 real servers of bench/tool_definition_sizes.py, replayed from a shapes file
   (bench/replay_server.py serves each recorded tool list over stdio); 20 synthetic servers of
   130 tools. Each figure is one `levelcode run`-like session: settings file, servers started,
   catalog, deferral plan, the Anthropic request as sent, measured as tests/e2e/test_tool_search.py
   measures it (tools not deferred beyond the built-ins, plus `tool_search` with its index).
2. A scripted 20-turn session (server-everything and the fault server with `alwaysLoad`, the other
   12 replayed servers deferred; a search is followed by a call of what it found): per turn, input tokens not cached, read from and written to the cache as the fake's prompt
   cache reports them, the total if nothing were cached, and whether tools + system stayed
   byte-identical from request to request.

`--record FILE` connects to every server of tool_definition_sizes.KNOWN it finds (under the
repository or a `--dir`) and writes their `tools/list` results, instructions and package versions.
Never touches the real user's home: every session runs in its own scratch LEVELCODE_HOME and HOME.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import platform
import sys
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.replay_server import synthetic_server  # noqa: E402
from bench.tool_definition_sizes import KNOWN, SCRATCH, find_binary, table  # noqa: E402
from levelcode.cli.aio import event_loop_factory  # noqa: E402
from levelcode.core.approvals import ApprovalRequest, Choice  # noqa: E402
from levelcode.core.messages import Usage  # noqa: E402
from levelcode.core.token_estimate import tool_tokens  # noqa: E402
from levelcode.mcp.calls.catalog import AgentTool  # noqa: E402
from tests.e2e.test_tool_search import anthropic_mcp_tokens  # noqa: E402
from tests.fakes.anthropic_prompt import loaded_tools  # noqa: E402
from tests.fakes.fake_anthropic import fake_anthropic  # noqa: E402
from tests.fakes.scripted_server import RecordedRequest, Reply, ToolCall  # noqa: E402

SHAPES = ROOT / "bench" / "shapes" / "thirteen_servers.json"
REPLAY = ROOT / "bench" / "replay_server.py"
FAULT = ROOT / "tests" / "servers" / "fault_server.py"
WINDOW = 200_000  # Claude models' window; "auto" defers over 10 % of it
TARGET_DEFERRED = 2_000  # the MCP part of the first request, with deferral
MODEL = "claude-sonnet-5-5"
PACKAGES = {  # KNOWN's servers → (registry, package), for the shapes file's header
    "sequential-thinking": ("npm", "@modelcontextprotocol/server-sequential-thinking"),
    "context7": ("npm", "@upstash/context7-mcp"),
    "chrome-devtools": ("npm", "chrome-devtools-mcp"),
    "playwright": ("npm", "@playwright/mcp"),
    "notion": ("npm", "@notionhq/notion-mcp-server"),
    "github": ("npm", "@modelcontextprotocol/server-github"),
    "everything": ("npm", "@modelcontextprotocol/server-everything"),
    "filesystem": ("npm", "@modelcontextprotocol/server-filesystem"),
    "memory": ("npm", "@modelcontextprotocol/server-memory"),
    "git": ("pypi", "mcp-server-git"),
    "time": ("pypi", "mcp-server-time"),
    "fetch": ("pypi", "mcp-server-fetch"),
    "markitdown": ("pypi", "markitdown-mcp"),
}


class AllowEverything:
    """Says yes to every card: the benchmark's calls are to servers it started itself."""

    interactive = True

    async def decide(self, request: ApprovalRequest) -> Choice:
        return "once"


# --- recording real servers' tool lists ----------------------------------------------------------


def package_version(name: str, binary: Path, dirs: Sequence[Path]) -> str | None:
    registry, package = PACKAGES[name]
    if registry == "npm":
        for base in (ROOT, *dirs):
            manifest = base / "node_modules" / package / "package.json"
            if manifest.exists():
                return str(json.loads(manifest.read_text(encoding="utf-8"))["version"])
        return None
    dist = package.replace("-", "_")
    for info in binary.resolve().parent.parent.glob(f"lib/python*/site-packages/{dist}-*.dist-info"):
        return info.name.removeprefix(f"{dist}-").removesuffix(".dist-info")
    return None


async def record_one(spec: Any) -> dict[str, Any]:
    from levelcode.mcp.launch.connect_options import ConnectOptions
    from levelcode.mcp.live.connection import connect

    SCRATCH.mkdir(exist_ok=True)
    connection = await connect(spec, ConnectOptions(workspace=SCRATCH, startup_timeout=60))
    try:
        await connection.list_resources()
        keys = ("name", "title", "description", "inputSchema", "annotations")
        tools = [{k: tool[k] for k in keys if k in tool} for tool in connection.tools]
        info = {"name": connection.info.name, "version": connection.info.version}
        return {
            "name": spec.name,
            "serverInfo": info,
            "instructions": connection.info.instructions,
            "has_resources": connection.has_resources,
            "tools": tools,
        }
    finally:
        await connection.close()


async def record(path: Path, dirs: Sequence[Path]) -> None:
    from levelcode.core.errors import McpError

    specs, missing = table(dirs, [])
    servers, header = [], []
    for spec in specs:
        try:
            server = await record_one(spec)
        except (McpError, OSError) as exc:
            missing.append(f"{spec.name}: did not start ({exc})")
            continue
        registry, package = PACKAGES[spec.name]
        version = package_version(spec.name, Path(spec.command), dirs)
        header.append({"server": spec.name, "registry": registry, "package": package, "version": version})
        servers.append(server)
        print(f"recorded {spec.name}: {package} {version}, {len(server['tools'])} tools")
    note = (
        "Tool lists (tools/list) as these packages' servers returned them: the packages' own "
        "public text, recorded by bench/context_bench.py --record and replayed by bench/replay_server.py."
    )
    document = {"about": note, "packages": header, "not_recorded": missing, "servers": servers}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(servers)} of {len(KNOWN)} servers recorded into {path}")
    for line in missing:
        print(f"not recorded: {line}")


# --- a session like `levelcode run`, against the fake API ------------------------------------------


def replayed(shapes: Path) -> dict[str, dict[str, Any]]:
    names = [s["name"] for s in json.loads(shapes.read_text(encoding="utf-8"))["servers"]]
    args = [str(REPLAY), "--shapes", str(shapes), "--server"]
    return {name: {"command": sys.executable, "args": [*args, name]} for name in names}


def synthetic(count: int) -> dict[str, dict[str, Any]]:
    servers = {}
    for index in range(count):
        name = synthetic_server(index, tools=0)["name"]
        servers[name] = {"command": sys.executable, "args": [str(REPLAY), "--synthetic", str(index)]}
    return servers


def everything() -> dict[str, dict[str, Any]]:
    binary = find_binary("mcp-server-everything", ())
    if binary is None:
        raise SystemExit("node_modules/.bin/mcp-server-everything is missing: run npm ci")
    return {"everything": {"command": str(binary)}}


@contextlib.asynccontextmanager
async def session(servers: Mapping[str, Any], steps: Sequence[Any], **settings: Any) -> AsyncIterator[Any]:
    """A started ChatSession over `servers` in a scratch home, and the fake API it talks to."""
    from levelcode.agent.events import RecordingSink
    from levelcode.cli.start.chat_parts import open_session
    from levelcode.cli.start.light_start import prepare_session

    with tempfile.TemporaryDirectory(prefix="levelcode-context-bench-") as scratch:
        home, workspace = Path(scratch) / "home", Path(scratch) / "workspace"
        workspace.mkdir(parents=True)
        home.mkdir()
        body = {"mcpServers": dict(servers), "contextWindow": WINDOW, **settings}
        (home / "settings.json").write_text(json.dumps(body), encoding="utf-8")
        os.environ.update({"LEVELCODE_HOME": str(home), "HOME": str(home), "ANTHROPIC_API_KEY": "test-key"})
        with fake_anthropic(steps) as fake:
            args = argparse.Namespace(
                workspace=str(workspace), provider="anthropic", model=MODEL, base_url=fake.base_url
            )
            start = prepare_session(args)
            await start.mcp.begin_trusted()
            chat = open_session(start, approver=AllowEverything(), sink=RecordingSink())
            try:
                await chat.start()
                yield chat, fake
            finally:
                await chat.close()


def listed_tokens(chat: Any) -> tuple[int, int]:
    """(tools, tokens) of what the servers listed, before LevelCode's catalog: the baseline."""
    raw = [t for _server, tools in chat.mcp.hub.listings() for t in tools]
    shaped = [
        AgentTool(str(t.get("name")), str(t.get("description") or ""), t.get("inputSchema") or {})
        for t in raw
    ]
    return len(raw), sum(tool_tokens(t) for t in shaped)


async def first_request(servers: Mapping[str, Any], tool_search: str) -> dict[str, Any]:
    async with session(servers, [Reply(text="ok")], toolSearch=tool_search) as (chat, fake):
        await chat.agent.run_turn("hello")
        request: RecordedRequest = fake.requests[0]
        listed, listed_cost = listed_tokens(chat)
        usage = chat.agent.last_usage or Usage()
    tools = request.body["tools"]
    search = next((t for t in tools if t["name"] == "tool_search"), None)
    return {
        "listed": listed,
        "listed_tokens": listed_cost,
        "offered": sum(1 for t in tools if "__" in t["name"]),
        "deferred": sum(1 for t in tools if t.get("defer_loading")),
        "mcp_tokens": anthropic_mcp_tokens(request),
        "index_lines": search["description"].count("\n- ") if search else 0,
        "prompt": usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens,
    }


async def part_one(scenarios: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
    print(
        f"\n1. MCP tool definitions in the first request (tokens ≈ JSON chars / 4; window {WINDOW:,}, "
        f'"auto" defers over 10 % = {WINDOW // 10:,})'
    )
    print(
        f"{'servers':<26}{'listed':>14}{'offered':>9}{'never: MCP tok':>16}{'auto: MCP tok':>15}"
        f"{'deferred':>10}{'index':>7}{'ratio':>8}{'prompt never→auto':>22}  target ≤{TARGET_DEFERRED:,}"
    )
    for label, servers in scenarios:
        never = await first_request(servers, "never")
        auto = await first_request(servers, "auto")
        ratio = never["mcp_tokens"] / max(1, auto["mcp_tokens"])
        deferring = auto["deferred"] > 0
        verdict = (
            ("met" if auto["mcp_tokens"] <= TARGET_DEFERRED else "MISSED")
            if deferring
            else "(under budget: nothing deferred)"
        )
        print(
            f"{label:<26}{never['listed']:>5} {never['listed_tokens']:>8,}{never['offered']:>9}"
            f"{never['mcp_tokens']:>16,}{auto['mcp_tokens']:>15,}{auto['deferred']:>10}{auto['index_lines']:>7}"
            f"{ratio:>7.1f}x{never['prompt']:>11,}→{auto['prompt']:<10,} {verdict}"
        )
    print(
        "  listed: tools and tokens the servers sent; offered: what the catalog kept (≤ 100 per server);"
        " prompt: the whole first prompt as the fake counts it (system, built-ins, MCP)"
    )


# --- 2. the prompt cache over a scripted session --------------------------------------------------


def call_found(request: RecordedRequest) -> Reply:
    """The model calls the tool the latest search loaded (it can call nothing else deferred)."""
    found = loaded_tools(request.body)
    return Reply(tool_calls=(ToolCall(found[-1], {}),)) if found else Reply(text="nothing was found")


def scripted_turns(count: int) -> tuple[list[str], list[Any]]:
    """`count` user prompts and the fake model's steps: every other turn calls a tool (a search
    is followed by a call of what it found, in the same turn)."""
    calls: list[list[Any]] = [
        [Reply(tool_calls=(ToolCall("everything__echo", {"message": "hello"}),))],
        [Reply(tool_calls=(ToolCall("tool_search", {"query": "search notion pages"}),)), call_found],
        [Reply(tool_calls=(ToolCall("read_file", {"path": "notes.txt"}),))],
        [Reply(tool_calls=(ToolCall("fault__echo", {"message": "ping"}),))],
        [Reply(tool_calls=(ToolCall("tool_search", {"query": "create github issue"}),)), call_found],
        [Reply(tool_calls=(ToolCall("everything__get-sum", {"a": 2, "b": 3}),))],
    ]
    prompts, steps = [], []
    for turn in range(count):
        uses_tool = turn % 2 == 1
        prompts.append(
            f"Turn {turn + 1}: " + ("please use a tool" if uses_tool else "tell me about the project")
        )
        if uses_tool:
            steps.extend(calls[(turn // 2) % len(calls)])
        steps.append(Reply(text=f"Answer {turn + 1}. " + "Here is what I found. " * (5 + turn % 4)))
    return prompts, steps


def unmarked(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: unmarked(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [unmarked(item) for item in value]
    return value


async def part_two(servers: Mapping[str, Any], turns: int) -> None:
    prompts, steps = scripted_turns(turns)
    rows: list[tuple[int, Usage, int]] = []
    async with session(servers, steps) as (chat, fake):
        (chat.workspace / "notes.txt").write_text("notes for the benchmark\n", encoding="utf-8")
        for number, prompt in enumerate(prompts, 1):
            before = len(fake.requests)
            await chat.agent.run_turn(prompt)
            rows.append((number, chat.agent.turn_usage, len(fake.requests) - before))
        bodies = [r.body for r in fake.requests]
        deferred = len(chat.mcp.router.plan().deferred)
    print(
        f"\n2. Prompt cache over a scripted {turns}-turn session ({', '.join(servers)}; "
        f"{deferred} tools behind tool_search; fake API's cache, minimum 1,024 tokens)"
    )
    print(f"{'turn':>4}{'requests':>9}{'uncached':>10}{'cache read':>12}{'cache write':>13}{'all input':>11}")
    total = Usage()
    for number, usage, requests in rows:
        total += usage
        print(
            f"{number:>4}{requests:>9}{usage.input_tokens:>10,}{usage.cache_read_input_tokens:>12,}"
            f"{usage.cache_creation_input_tokens:>13,}{prompt_tokens(usage):>11,}"
        )
    print(
        f"{'all':>4}{len(bodies):>9}{total.input_tokens:>10,}{total.cache_read_input_tokens:>12,}"
        f"{total.cache_creation_input_tokens:>13,}{prompt_tokens(total):>11,}"
    )
    everything_in, fresh = prompt_tokens(total), total.input_tokens + total.cache_creation_input_tokens
    weighted = (
        total.input_tokens + 0.1 * total.cache_read_input_tokens + 1.25 * total.cache_creation_input_tokens
    )
    print(
        f"  if nothing were cached: {everything_in:,} input tokens, all processed anew; with the cache "
        f"{fresh:,} processed anew (uncached + written: {everything_in / max(1, fresh):.1f}x fewer), "
        f"{total.cache_read_input_tokens / max(1, everything_in):.0%} read from the cache"
    )
    print(
        f"  at the API's price weights (read 0.1x, write 1.25x): {weighted:,.0f} vs {everything_in:,} "
        f"({everything_in / max(1.0, weighted):.1f}x cheaper)"
    )
    print(
        "  uncached is 0 because the last cache marker sits on the conversation's last block: every input "
        "token of a request is either read from the cache or written to it"
    )
    prefixes = {json.dumps(unmarked([b.get("tools"), b.get("system")])) for b in bodies}
    print(
        f"  prefix (tools + system, markers aside) identical across {len(bodies)} requests: "
        f"{'yes' if len(prefixes) == 1 else f'no ({len(prefixes)} different)'}"
    )
    grows = all(
        json.dumps(unmarked(a["messages"])) == json.dumps(unmarked(b["messages"][: len(a["messages"])]))
        for a, b in itertools.pairwise(bodies)
    )
    print(f"  each request's messages begin with the previous request's: {'yes' if grows else 'no'}")


def prompt_tokens(usage: Usage) -> int:
    return usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens


def header() -> None:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"python {platform.python_version()} · {os.cpu_count()} cpus · load {load} · model {MODEL} "
        f"(fake Anthropic API on 127.0.0.1)"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--record", type=Path, metavar="FILE", help="record KNOWN servers' tool lists into FILE"
    )
    parser.add_argument(
        "--dir", action="append", type=Path, default=[], help="where more servers are installed"
    )
    parser.add_argument("--shapes", type=Path, default=SHAPES, help="recorded tool lists to replay")
    parser.add_argument("--quick", action="store_true", help="smoke run: 3 synthetic servers, 6 turns")
    args = parser.parse_args()
    if args.record:
        await record(args.record, args.dir)
        return
    header()
    shapes = json.loads(args.shapes.read_text(encoding="utf-8"))
    print(
        f"shapes: {args.shapes.name}: {len(shapes['servers'])} servers ("
        + ", ".join(f"{p['package']} {p['version']}" for p in shapes["packages"])
        + ")"
    )
    for line in shapes["not_recorded"]:
        print(f"  not recorded: {line}")
    count = 3 if args.quick else 20
    scenarios = [
        ("1 server (everything)", everything()),
        (f"{len(shapes['servers'])} real servers (replayed)", replayed(args.shapes)),
        (f"{count} synthetic x 130 tools", synthetic(count)),
    ]
    await part_one(scenarios)
    # the two servers called most stay loaded (`alwaysLoad`); the replayed ones (but the real
    # server-everything's twin) are deferred
    loaded = {**everything(), "fault": {"command": sys.executable, "args": [str(FAULT)]}}
    loaded = {name: {**entry, "alwaysLoad": True} for name, entry in loaded.items()}
    others = {name: entry for name, entry in replayed(args.shapes).items() if name not in loaded}
    await part_two({**loaded, **others}, 6 if args.quick else 20)


if __name__ == "__main__":
    with asyncio.Runner(loop_factory=event_loop_factory()) as runner:
        runner.run(main())
