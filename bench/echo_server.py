"""A minimal MCP server for benchmarks: the `initialize` handshake, one tool (`echo`), nothing else.

Standard library only, so its own cost is as small as a server's can be and every client measured
against it pays the same.
"""

import json
import sys

TOOLS = {"tools": [{"name": "echo", "description": "Echo a message", "inputSchema": {"type": "object"}}]}


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" not in message:
            continue
        method = message.get("method")
        if method == "initialize":
            info = {"name": "bench-echo", "version": "1"}
            result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": info}
        elif method == "tools/list":
            result = TOOLS
        elif method == "tools/call":
            text = str(message["params"].get("arguments", {}).get("message", ""))
            result = {"content": [{"type": "text", "text": text}]}
        else:
            result = {}
        out.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
