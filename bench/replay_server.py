"""An MCP server for benchmarks that offers tools it does not have: the tool list recorded from a
real server (a shapes file of `bench/context_bench.py --record`), or a synthetic one made from a
seed. Every call answers with one line of text naming the tool.

    python bench/replay_server.py --shapes FILE --server NAME
    python bench/replay_server.py --synthetic INDEX [--tools N] [--seed S]

Standard library only; the `initialize` handshake (2025-06-18) on newline-delimited JSON-RPC over
stdio, as a typical server of today speaks it. It answers with the recorded server's name,
version and instructions, and lists one resource when the recorded server listed any (so a
client adds the same resource tools it added for the real one). Never reads anything but the
shapes file, never writes anything but its replies.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

SYNTHETIC_TOOLS = 130
SYNTHETIC_SEED = 20_260_728

# Made-up but ordinary back-office services: each synthetic server is one of them.
DOMAINS = (
    ("tickets", "issue tracker", ("ticket", "comment", "sprint", "board", "label", "epic")),
    ("crm", "customer relationship manager", ("contact", "account", "deal", "lead", "note", "task")),
    ("billing", "billing system", ("invoice", "payment", "refund", "plan", "coupon", "customer")),
    ("wiki", "team wiki", ("page", "space", "attachment", "comment", "template", "draft")),
    ("chat", "team chat", ("channel", "message", "thread", "reaction", "member", "reminder")),
    ("calendar", "calendar service", ("event", "calendar", "attendee", "room", "slot", "invite")),
    ("storage", "object storage", ("bucket", "object", "policy", "upload", "version", "lifecycle")),
    ("cloud", "cloud console", ("instance", "volume", "snapshot", "network", "firewall", "image")),
    ("k8s", "cluster manager", ("pod", "deployment", "service", "namespace", "secret", "job")),
    ("db", "database admin", ("table", "index", "query", "backup", "replica", "user")),
    ("monitor", "monitoring service", ("alert", "dashboard", "metric", "monitor", "incident", "silence")),
    ("logs", "log search", ("query", "stream", "view", "pipeline", "archive", "field")),
    ("ci", "build service", ("pipeline", "build", "artifact", "runner", "variable", "schedule")),
    ("design", "design tool", ("file", "frame", "component", "comment", "style", "export")),
    ("mail", "mail service", ("message", "draft", "label", "filter", "contact", "thread")),
    ("hr", "people directory", ("employee", "team", "leave", "review", "position", "document")),
    ("shop", "online shop admin", ("product", "order", "variant", "collection", "discount", "shipment")),
    ("analytics", "product analytics", ("event", "funnel", "cohort", "report", "segment", "export")),
    ("docs", "document signing", ("envelope", "document", "signer", "template", "field", "audit")),
    ("support", "help desk", ("conversation", "article", "macro", "customer", "tag", "survey")),
)
VERBS = (
    ("list", "List {noun}s in the {system}, newest first."),
    ("get", "Get a {noun} of the {system} by id."),
    ("create", "Create a {noun} in the {system}; returns its id."),
    ("update", "Update fields of a {noun} in the {system}."),
    ("delete", "Delete a {noun} from the {system}. This cannot be undone."),
    ("search", "Search {noun}s in the {system} by text, matching titles and bodies."),
    ("archive", "Archive a {noun} in the {system} so it no longer shows in default lists."),
    ("export", "Export {noun}s of the {system} as CSV or JSON for a date range."),
)
EXTRA = (
    "Requires the {scope} scope.",
    "Rate limited to 60 requests per minute.",
    "Results are paginated; pass the cursor from the previous page.",
    "Times are ISO 8601 in UTC.",
    "",
)
PARAMETERS = (
    ("limit", {"type": "integer", "minimum": 1, "maximum": 100, "description": "How many to return"}),
    ("cursor", {"type": "string", "description": "Cursor from the previous page"}),
    ("query", {"type": "string", "description": "Text to search for"}),
    ("status", {"type": "string", "enum": ["open", "closed", "all"], "description": "Filter by status"}),
    ("since", {"type": "string", "format": "date-time", "description": "Only items changed since"}),
    ("fields", {"type": "array", "items": {"type": "string"}, "description": "Fields to include"}),
    ("owner", {"type": "string", "description": "User id of the owner"}),
    ("tags", {"type": "array", "items": {"type": "string"}, "description": "Tags to set"}),
)


def synthetic_server(index: int, tools: int = SYNTHETIC_TOOLS, seed: int = SYNTHETIC_SEED) -> dict[str, Any]:
    """Server `index` of the synthetic set, in the shapes file's form; the same every time."""
    key, system, nouns = DOMAINS[index % len(DOMAINS)]
    name = key if index < len(DOMAINS) else f"{key}{index // len(DOMAINS)}"
    rng = random.Random(seed * 1000 + index)
    listed = [_synthetic_tool(rng, system, nouns, n) for n in range(tools)]
    instructions = f"Tools for the {system}: read and change its {', '.join(nouns[:3])}s and more."
    return {
        "name": name,
        "serverInfo": {"name": f"{name}-mcp", "version": "1.0.0"},
        "instructions": instructions,
        "has_resources": False,
        "tools": listed,
    }


def _synthetic_tool(rng: random.Random, system: str, nouns: tuple[str, ...], n: int) -> dict[str, Any]:
    noun = nouns[n % len(nouns)]
    verb, template = VERBS[(n // len(nouns)) % len(VERBS)]
    round_ = n // (len(nouns) * len(VERBS))  # past 48 tools: variants on sub-resources
    subject = noun if round_ == 0 else f"{noun}_{('link', 'history', 'setting')[(round_ - 1) % 3]}"
    description = template.format(noun=subject.replace("_", " "), system=system)
    extra = rng.choice(EXTRA).format(scope=f"{noun}s:{'read' if verb in ('list', 'get') else 'write'}")
    extra = extra if rng.random() < 0.2 else ""
    properties: dict[str, Any] = {}
    required: list[str] = []
    if verb not in ("list", "search", "export"):
        properties[f"{noun}_id"] = {"type": "string", "description": f"Id of the {noun}"}
        required.append(f"{noun}_id")
    for pname, pschema in rng.sample(PARAMETERS, rng.choice((0, 0, 1) if required else (0, 1, 1))):
        properties[pname] = dict(pschema)
    annotations = {"readOnlyHint": verb in ("list", "get", "search", "export")}
    if verb == "delete":
        annotations["destructiveHint"] = True
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return {
        "name": f"{verb}_{subject}",
        "description": f"{description} {extra}".strip(),
        "inputSchema": schema,
        "annotations": annotations,
    }


def recorded_server(shapes: Path, name: str) -> dict[str, Any]:
    for server in json.loads(shapes.read_text(encoding="utf-8"))["servers"]:
        if server["name"] == name:
            return dict(server)
    raise SystemExit(f"replay_server: no server {name!r} in {shapes}")


def answer(server: dict[str, Any], method: object, params: dict[str, Any]) -> dict[str, Any]:
    """The result for one request, or {"error": ...}."""
    if method == "initialize":
        capabilities: dict[str, Any] = {"tools": {}}
        if server.get("has_resources"):
            capabilities["resources"] = {}
        result = {
            "protocolVersion": "2025-06-18",
            "capabilities": capabilities,
            "serverInfo": server.get("serverInfo") or {"name": server["name"], "version": "0"},
        }
        if server.get("instructions"):
            result["instructions"] = server["instructions"]
        return {"result": result}
    if method == "tools/list":
        return {"result": {"tools": server["tools"]}}
    if method == "tools/call":
        text = f"{params.get('name')} ran (replayed by the benchmark)"
        return {"result": {"content": [{"type": "text", "text": text}]}}
    if method == "resources/list" and server.get("has_resources"):
        resource = {"uri": "bench://replayed/1", "name": "replayed", "mimeType": "text/plain"}
        return {"result": {"resources": [resource]}}
    if method == "resources/templates/list" and server.get("has_resources"):
        return {"result": {"resourceTemplates": []}}
    if method == "ping":
        return {"result": {}}
    return {"error": {"code": -32601, "message": f"Method not found: {method}"}}


def serve(server: dict[str, Any]) -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue  # a notification, or an answer to nothing we asked
        reply = {
            "jsonrpc": "2.0",
            "id": message["id"],
            **answer(server, message["method"], message.get("params") or {}),
        }
        out.write(json.dumps(reply).encode() + b"\n")
        out.flush()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shapes", type=Path)
    parser.add_argument("--server")
    parser.add_argument("--synthetic", type=int)
    parser.add_argument("--tools", type=int, default=SYNTHETIC_TOOLS)
    parser.add_argument("--seed", type=int, default=SYNTHETIC_SEED)
    args = parser.parse_args()
    if args.synthetic is not None:
        serve(synthetic_server(args.synthetic, args.tools, args.seed))
    elif args.shapes is not None and args.server:
        serve(recorded_server(args.shapes, args.server))
    else:
        parser.error("give --shapes FILE --server NAME, or --synthetic INDEX")


if __name__ == "__main__":
    main()
