"""An MCP Registry on 127.0.0.1 for the tests: the REST API's v0.1 shapes (`GET /v0.1/servers` with
`search`, `version=latest`, `limit`, `cursor` and `metadata.nextCursor`; `GET /v0.1/servers/{name}/
versions/{version}`, `latest` included, 404 for one it does not have), served from the `server.json`
files recorded in tests/mcp/registry/recorded/ (sources in SOURCES.md there).

A test can add versions, replace the answer to any path (a malformed page, a server.json that
smuggles something), and read every request made.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from tests.support.listener import serving

RECORDED = Path(__file__).resolve().parents[1] / "mcp" / "registry" / "recorded"
OFFICIAL = "io.modelcontextprotocol.registry/official"


def recorded(stem: str) -> dict[str, Any]:
    """One recorded server.json, by its file's name."""
    doc: dict[str, Any] = json.loads((RECORDED / f"{stem}.json").read_text(encoding="utf-8"))
    return doc


def every_recorded() -> list[dict[str, Any]]:
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(RECORDED.glob("*.json"))]


def record(server: Mapping[str, Any], *, latest: bool = True, status: str = "active") -> dict[str, Any]:
    """A server.json as the registry serves it: with the registry's own `_meta`."""
    meta = {"status": status, "publishedAt": "2026-08-31T12:00:00Z", "isLatest": latest}
    return {"server": dict(server), "_meta": {OFFICIAL: meta}}


@dataclass
class Answer:
    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict[str, str])


@dataclass
class LocalRegistry:
    url: str
    versions: dict[str, list[dict[str, Any]]] = field(default_factory=dict[str, list[dict[str, Any]]])
    answers: dict[str, Answer] = field(default_factory=dict[str, Answer])  # path → a fixed answer
    requests: list[str] = field(default_factory=list[str])  # "/v0.1/servers?search=…", in order

    def add(self, server: Mapping[str, Any], *, status: str = "active") -> None:
        """Another version of a server; the last one added is its latest."""
        listed = self.versions.setdefault(str(server["name"]), [])
        for older in listed:
            older["_meta"][OFFICIAL]["isLatest"] = False
        listed.append(record(server, status=status))

    def answer(self, path: str, status: int, body: bytes | str | object) -> None:
        """Answer `path` (without its query) with this, whatever was asked."""
        if isinstance(body, bytes):
            raw = body
        else:
            raw = (body if isinstance(body, str) else json.dumps(body)).encode()
        self.answers[path] = Answer(status, raw)

    def latest(self, name: str) -> dict[str, Any] | None:
        listed = self.versions.get(name)
        return listed[-1] if listed else None

    def page(self, query: Mapping[str, list[str]]) -> dict[str, Any]:
        """One page of the latest versions, sorted by name; the cursor is the last name given."""
        text = query.get("search", [""])[0].lower()
        limit = int(query.get("limit", ["30"])[0])
        after = query.get("cursor", [""])[0]
        names = sorted(name for name in self.versions if text in name.lower() and name > after)
        chosen = names[:limit]
        servers = [self.latest(name) for name in chosen]
        metadata: dict[str, Any] = {"count": len(servers)}
        if len(names) > limit:
            metadata["nextCursor"] = chosen[-1]
        return {"servers": servers, "metadata": metadata}

    def version(self, name: str, version: str) -> dict[str, Any] | None:
        listed = self.versions.get(name, [])
        if version == "latest":
            return listed[-1] if listed else None
        return next((entry for entry in listed if entry["server"]["version"] == version), None)


def _handler(registry: LocalRegistry) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            registry.requests.append(self.path)
            parts = urlsplit(self.path)
            fixed = registry.answers.get(parts.path)
            if fixed is not None:
                self._send(fixed.status, fixed.body)
                return
            self._route(parts.path, parse_qs(parts.query))

        def _route(self, path: str, query: Mapping[str, list[str]]) -> None:
            if path == "/v0.1/servers":
                self._json(200, registry.page(query))
                return
            prefix = "/v0.1/servers/"
            if path.startswith(prefix) and "/versions/" in path:
                name, _, version = path[len(prefix) :].partition("/versions/")
                found = registry.version(unquote(name), unquote(version))
                if found is None:
                    self._json(404, {"error": "Server not found"})
                else:
                    self._json(200, found)
                return
            self._json(404, {"error": "Not found"})

        def _json(self, status: int, doc: object) -> None:
            self._send(status, json.dumps(doc).encode())

        def _send(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # quiet
            return

    return Handler


@contextmanager
def local_registry(*servers: Mapping[str, Any]) -> Iterator[LocalRegistry]:
    """The registry with these servers (default: every recorded one), on 127.0.0.1 for the block."""
    registry = LocalRegistry("")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(registry))
    registry.url = f"http://127.0.0.1:{server.server_address[1]}"
    for doc in servers or tuple(every_recorded()):
        registry.add(doc)
    with serving(server):
        yield registry
