"""A tiny MCP server on stdio (newline-delimited JSON-RPC), published by the tests as a wheel to a
local package index so that `uvx levelcode-test-echo-server` fetches and runs it. One tool,
`echo`, which also says which ecosystem served it. Standard library only: the wheel is this file.
"""

import json
import sys

TOOLS = [
    {
        "name": "echo",
        "description": "Returns the text it is given.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    }
]


def answer(request: dict) -> object:
    method = request.get("method")
    if method == "initialize":
        return {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "levelcode-test-echo-server", "version": "1.0.0"},
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        return {
            "content": [{"type": "text", "text": f"python echo: {request['params']['arguments']['text']}"}]
        }
    return None


def main() -> None:
    for line in sys.stdin:
        try:
            request = json.loads(line)
        except ValueError:
            continue
        if "id" not in request:
            continue  # a notification
        result = answer(request)
        if result is None:
            message = {
                "id": request["id"],
                "error": {"code": -32601, "message": f"unknown method {request.get('method')}"},
            }
        else:
            message = {"id": request["id"], "result": result}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
