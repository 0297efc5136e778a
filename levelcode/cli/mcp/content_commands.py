"""`levelcode mcp resources | read | prompts | prompt`: a server's resources and prompts, for
people (control characters escaped on a terminal) and scripts (`--json`; piped, exact text).

Each starts only the server it names, through the same launch gate as the agent (a repository's
server must be approved first); nobody is asked anything, so a server's request for input is
declined. Binary contents are summarised, never printed as base64.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Awaitable, Callable

from levelcode.cli.aio import run_command
from levelcode.cli.mcp.list_and_call import one_server, progress
from levelcode.core.errors import McpError
from levelcode.mcp.live.connection import McpConnection
from levelcode.mcp.live.server_content import get_prompt, read_resource, resource_index
from levelcode.mcp.protocol.content import prompt_arguments, resource_lines
from levelcode.ui.visible import visible_block

Work = Callable[[McpConnection], Awaitable[int]]


def _out(text: str) -> None:
    print(visible_block(text) if sys.stdout.isatty() else text)


def with_server(args: argparse.Namespace, work: Work) -> int:
    """Start the one server `args.server` names (through the launch gate) and run `work` on it."""
    found = one_server(args)
    if found is None:
        return 2
    runtime, spec = found

    async def main() -> int:
        if sys.stderr.isatty():
            progress(f"starting {spec.name}…")
        await runtime.start()
        connection = runtime.connection(spec.name)
        if connection is None:
            return 1
        try:
            return await work(connection)
        except McpError as exc:
            progress(f"{spec.name}: {exc}")
            return 1

    return run_command(main, runtime.close)


def mcp_resources(args: argparse.Namespace) -> int:
    async def work(connection: McpConnection) -> int:
        if not connection.info.offer("resources"):
            progress(f"{connection.name} offers no resources")
            return 1
        resources, templates = await resource_index(connection)
        if args.json:
            print(json.dumps({"resources": list(resources), "resourceTemplates": list(templates)}, indent=2))
        else:
            _out("\n".join(resource_lines(resources, templates)) or f"{connection.name} lists no resources")
        return 0

    return with_server(args, work)


def mcp_read(args: argparse.Namespace) -> int:
    async def work(connection: McpConnection) -> int:
        outcome = await read_resource(connection, args.uri)
        _out(outcome.text)
        return 1 if outcome.is_error else 0

    return with_server(args, work)


def mcp_prompts(args: argparse.Namespace) -> int:
    async def work(connection: McpConnection) -> int:
        if not connection.info.offer("prompts"):
            progress(f"{connection.name} offers no prompts")
            return 1
        prompts = await connection.listing("prompts/list", "prompts")
        if args.json:
            print(json.dumps({"prompts": list(prompts)}, indent=2))
            return 0
        lines = []
        for prompt in prompts:
            description = prompt.get("description")
            lines.append(
                f"{prompt.get('name')}" + (f" — {description}" if isinstance(description, str) else "")
            )
            lines += [
                f"    {name}{' (required)' if required else ''}" + (f": {text}" if text else "")
                for name, required, text in prompt_arguments(prompt)
            ]
        _out("\n".join(lines) or f"{connection.name} lists no prompts")
        return 0

    return with_server(args, work)


def mcp_prompt(args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.arguments)
    except json.JSONDecodeError as exc:
        progress(f"ARGUMENTS must be a JSON object: {exc}")
        return 2
    if not isinstance(arguments, dict) or not all(isinstance(v, str) for v in arguments.values()):
        progress('ARGUMENTS must be a JSON object of strings, such as \'{"city": "Paris"}\'')
        return 2

    async def work(connection: McpConnection) -> int:
        prompt = await get_prompt(connection, args.name, arguments)
        if args.json:
            doc = {
                "description": prompt.description,
                "messages": [{"role": r, "text": t} for r, t in prompt.messages],
            }
            print(json.dumps(doc, indent=2, ensure_ascii=False))
        else:
            _out("\n\n".join(f"[{role}]\n{text}" for role, text in prompt.messages))
        return 0

    return with_server(args, work)
