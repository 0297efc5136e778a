"""A 2026-07-28 MCP server written from the specification text, for what the reference servers do
not implement yet: the tasks extension (`io.modelcontextprotocol/tasks`) and list caching hints.

Standard library only. `python task_server.py PORT [--store FILE] [--ttl-ms N] [--scope S]` serves
Streamable HTTP (stateless, JSON answers) on 127.0.0.1:PORT/mcp; `--stdio` speaks newline JSON on
stdio instead. Tools:
    report {seconds, steps}        works `seconds`, never as a task (the plain call)
    task_report {seconds, steps}   the same work as a task when the request declares the extension
    task_ask {}                    a task that needs the user's answer (an elicitation in
                                   `inputRequests`), answered through `tasks/update`
    task_fail {}                   a task that fails with a JSON-RPC error
    task_forever {}                a task that never ends unless cancelled
    request_counts {}              how many requests of each method it has answered
A task's state follows from the clock and what it was told (its start, `seconds`, answers,
cancellation), so with `--store` a restarted server knows every task it created: a client that
polls again after a restart finds its task where the clock says it is. Over HTTP a `tasks/*`
request must carry `Mcp-Name: <taskId>` (the extension's routing rule), or it is refused with 400.
Lists carry `ttlMs` (`--ttl-ms`, default 0) and `cacheScope` (`--scope`, default "public"); tasks
suggest polling every `--poll-ms` (default 100). Over stdio, where the server can speak first, a
`task_report` whose call carried a `progressToken` also reports `notifications/progress` on that
token as each step ends (`progress` steps done of `total`), with the related-task `_meta`.
`Server.handle` is the protocol alone (a message in, its answer out), so the same server also runs
in memory (tests/fakes/memory_server.py).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EXTENSION = "io.modelcontextprotocol/tasks"
VERSION = "2026-07-28"
TOOLS = ["report", "task_report", "task_ask", "task_fail", "task_forever", "request_counts"]
SCHEMA = {"type": "object", "properties": {"seconds": {"type": "number"}, "steps": {"type": "integer"}}}


def error(request_id: object, code: int, message: str, data: object = None) -> dict:
    body: dict = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": body}


def result(request_id: object, value: dict) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "result": {"resultType": "complete", **value}}


def text(value: str, *, is_error: bool = False) -> dict:
    return {"content": [{"type": "text", "text": value}], "isError": is_error}


def stamp(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


class Server:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.notify = None  # over stdio: sends a notification (a JSON object) to the client
        self.lock = threading.Lock()
        self.counts: dict[str, int] = {}
        self.tasks: dict[str, dict] = {}
        if args.store:
            try:
                with open(args.store, encoding="utf-8") as source:
                    self.tasks = json.load(source)
            except FileNotFoundError:
                pass

    def save(self) -> None:
        if self.args.store:
            with open(self.args.store, "w", encoding="utf-8") as sink:
                json.dump(self.tasks, sink)

    def handle(self, message: dict) -> dict | None:
        method, request_id = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if "id" not in message:
            return None
        with self.lock:
            self.counts[str(method)] = self.counts.get(str(method), 0) + 1
            return self.answer(str(method), request_id, params)

    def declared(self, params: dict) -> bool:
        capabilities = (params.get("_meta") or {}).get("io.modelcontextprotocol/clientCapabilities") or {}
        return EXTENSION in (capabilities.get("extensions") or {})

    def listed(self, value: dict) -> dict:
        return {**value, "ttlMs": self.args.ttl_ms, "cacheScope": self.args.scope}

    def answer(self, method: str, request_id: object, params: dict) -> dict:
        if method == "initialize":
            return error(request_id, -32022, "Unsupported protocol version", {"supported": [VERSION]})
        if method == "server/discover":
            capabilities = {"tools": {}, "extensions": {EXTENSION: {}}}
            info = {"io.modelcontextprotocol/serverInfo": {"name": "task-server", "version": "1.0"}}
            return result(
                request_id,
                self.listed({"supportedVersions": [VERSION], "capabilities": capabilities, "_meta": info}),
            )
        if method == "tools/list":
            tools = [
                {"name": n, "description": f"task server tool {n}", "inputSchema": SCHEMA} for n in TOOLS
            ]
            return result(request_id, self.listed({"tools": tools}))
        if method == "tools/call":
            return self.call(request_id, params)
        if method in ("tasks/get", "tasks/update", "tasks/cancel"):
            return self.task_request(method, request_id, params)
        if method == "ping":
            return result(request_id, {})
        return error(request_id, -32601, f"Method not found: {method}")

    def call(self, request_id: object, params: dict) -> dict:
        name, arguments = params.get("name"), params.get("arguments") or {}
        seconds, steps = float(arguments.get("seconds", 1.0)), int(arguments.get("steps", 4))
        if name == "report":
            time.sleep(seconds)
            return result(request_id, text(f"report done: {steps} steps in {seconds:g} s"))
        if name == "request_counts":
            return result(request_id, text(json.dumps(self.counts, sort_keys=True)))
        if name not in TOOLS:
            return error(request_id, -32602, f"Unknown tool: {name}")
        if not self.declared(params):
            return error(
                request_id,
                -32021,
                "Missing required client capability",
                {"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
            )
        task_id = uuid.uuid4().hex
        now = time.time()
        self.tasks[task_id] = {"kind": name, "created": now, "seconds": seconds, "steps": steps}
        self.save()
        token = (params.get("_meta") or {}).get("progressToken")
        if name == "task_report" and token is not None and self.notify is not None:
            threading.Thread(target=self.report_steps, args=(task_id, token), daemon=True).start()
        return {"jsonrpc": "2.0", "id": request_id, "result": {"resultType": "task", **self.view(task_id)}}

    def report_steps(self, task_id: str, token: object) -> None:
        """Progress on the call's token as each step of the task's work ends (the work is the
        clock's, as everywhere here), until it is done or cancelled."""
        task = self.tasks[task_id]
        for step in range(1, task["steps"] + 1):
            time.sleep(task["seconds"] / max(task["steps"], 1))
            if "cancelled" in task:
                return
            related = {"io.modelcontextprotocol/related-task": {"taskId": task_id}}
            params = {"progressToken": token, "progress": step, "total": task["steps"], "_meta": related}
            self.notify({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})

    def task_request(self, method: str, request_id: object, params: dict) -> dict:
        task_id = params.get("taskId")
        if not self.declared(params):
            return error(request_id, -32021, "Missing required client capability")
        if task_id not in self.tasks:
            return error(request_id, -32602, "Failed to retrieve task: Task not found")
        task = self.tasks[task_id]
        if method == "tasks/cancel":
            task.setdefault("cancelled", time.time())
            self.save()
            return result(request_id, {})
        if method == "tasks/update":
            answers = params.get("inputResponses") or {}
            if "confirm-1" in answers and "answer" not in task:
                task["answer"], task["answered"] = answers["confirm-1"], time.time()
                self.save()
            return result(request_id, {})
        return result(request_id, self.view(task_id))

    def view(self, task_id: str) -> dict:
        """The task as the clock and what it was told make it now (a `DetailedTask`)."""
        task, now = self.tasks[task_id], time.time()
        base = {
            "taskId": task_id,
            "createdAt": stamp(task["created"]),
            "ttlMs": 600_000,
            "pollIntervalMs": self.args.poll_ms,
        }
        elapsed, kind = now - task["created"], task["kind"]
        if "cancelled" in task:
            return {**base, "status": "cancelled", "lastUpdatedAt": stamp(task["cancelled"])}
        if kind == "task_fail":
            failure = {"code": -32603, "message": "the backend refused the job"}
            return {**base, "status": "failed", "lastUpdatedAt": stamp(now), "error": failure}
        if kind == "task_ask":
            return self.asking(base, task)
        if kind == "task_forever" or elapsed < task["seconds"]:
            step = min(task["steps"], int(elapsed / max(task["seconds"], 0.001) * task["steps"]) + 1)
            updated = task["created"] + (step - 1) * task["seconds"] / max(task["steps"], 1)
            message = f"step {step} of {task['steps']}"
            return {**base, "status": "working", "statusMessage": message, "lastUpdatedAt": stamp(updated)}
        done = text(f"task report done: {task['steps']} steps in {task['seconds']:g} s")
        return {**base, "status": "completed", "lastUpdatedAt": stamp(now), "result": done}

    def asking(self, base: dict, task: dict) -> dict:
        if "answer" not in task:
            form = {
                "mode": "form",
                "message": "Deploy to production?",
                "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
            }
            requests = {"confirm-1": {"method": "elicitation/create", "params": form}}
            stamped = stamp(task["created"])
            return {**base, "status": "input_required", "lastUpdatedAt": stamped, "inputRequests": requests}
        outcome = text(f"the user answered {json.dumps(task['answer'], sort_keys=True)}")
        return {**base, "status": "completed", "lastUpdatedAt": stamp(task["answered"]), "result": outcome}


def serve_http(server: Server, port: int) -> None:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            message = json.loads(body)
            method = str(message.get("method", ""))
            task_id = (message.get("params") or {}).get("taskId")
            if method.startswith("tasks/") and self.headers.get("Mcp-Name") != task_id:
                self.send_response(400)
                self.end_headers()
                return
            reply = server.handle(message)
            if reply is None:
                self.send_response(202)
                self.end_headers()
                return
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self.send_response(405)
            self.end_headers()

        def log_message(self, *_args: object) -> None:
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


def serve_stdio(server: Server) -> None:
    writing = threading.Lock()  # answers and notifications from the reporting threads, whole lines

    def send(message: dict) -> None:
        with writing:
            sys.stdout.write(json.dumps(message) + "\n")
            sys.stdout.flush()

    server.notify = send
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        reply = server.handle(message) if isinstance(message, dict) else None
        if reply is not None:
            send(reply)


def flags() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int, nargs="?", default=0)
    parser.add_argument("--stdio", action="store_true")
    parser.add_argument("--store")
    parser.add_argument("--ttl-ms", type=int, default=0)
    parser.add_argument("--scope", default="public")
    parser.add_argument("--poll-ms", type=int, default=100, help="the pollIntervalMs its tasks suggest")
    return parser


def main() -> None:
    args = flags().parse_args()
    server = Server(args)
    if args.stdio:
        serve_stdio(server)
    else:
        serve_http(server, args.port)


if __name__ == "__main__":
    main()
