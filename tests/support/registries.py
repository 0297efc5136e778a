"""A package registry on 127.0.0.1 for the tests: npm (a packument and its tarball) and a PEP 503
simple index (a wheel), each of the tiny MCP server under tests/servers/packaged/, built here
from its sources. A user points their tools at it the usual way: `npm_config_registry=URL`,
`UV_INDEX_URL=URL/simple`. Every request is recorded, so a test can tell what was fetched.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.support.listener import serving

PACKAGED = Path(__file__).resolve().parents[1] / "servers" / "packaged"
PACKAGE = "levelcode-test-echo-server"
VERSION = "1.0.0"
MODULE = "levelcode_test_echo_server"
WHEEL = f"{MODULE}-{VERSION}-py3-none-any.whl"


def npm_tarball() -> bytes:
    """The npm package as `npm pack` lays it out: every file under `package/`."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name in ("package.json", "server.js"):
            data = (PACKAGED / "npm" / name).read_bytes()
            info = tarfile.TarInfo(f"package/{name}")
            info.size, info.mode, info.mtime = len(data), 0o755 if name.endswith(".js") else 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def packument(base_url: str, tarball: bytes) -> dict[str, object]:
    manifest = json.loads((PACKAGED / "npm" / "package.json").read_text())
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    dist = {
        "tarball": f"{base_url}/{PACKAGE}/-/{PACKAGE}-{VERSION}.tgz",
        "shasum": hashlib.sha1(tarball).hexdigest(),
        "integrity": integrity,
    }
    return {
        "name": PACKAGE,
        "dist-tags": {"latest": VERSION},
        "versions": {VERSION: {**manifest, "dist": dist}},
    }


def wheel() -> bytes:
    """The Python package as a wheel: the module, its metadata, a console script, a RECORD."""
    dist_info = f"{MODULE}-{VERSION}.dist-info"
    files = {
        f"{MODULE}.py": (PACKAGED / "python" / f"{MODULE}.py").read_bytes(),
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {PACKAGE}\nVersion: {VERSION}\n".encode(),
        f"{dist_info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
        f"{dist_info}/entry_points.txt": f"[console_scripts]\n{PACKAGE} = {MODULE}:main\n".encode(),
    }
    record = [f"{name},sha256={_digest(data)},{len(data)}" for name, data in files.items()]
    files[f"{dist_info}/RECORD"] = ("\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n").encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return out.getvalue()


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


@dataclass
class Registry:
    url: str  # npm's registry URL; the simple index is at `url + "/simple"`
    requests: list[str] = field(default_factory=list[str])  # "GET /path", in order

    @property
    def index_url(self) -> str:
        return f"{self.url}/simple"

    def fetched(self, suffix: str) -> bool:
        return any(line.endswith(suffix) for line in self.requests)


@contextmanager
def package_registry() -> Iterator[Registry]:
    """The registry, serving on 127.0.0.1 for the duration of the block."""
    tarball, wheel_bytes = npm_tarball(), wheel()
    routes: dict[str, tuple[str, bytes]] = {}
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(routes))
    registry = Registry(f"http://127.0.0.1:{server.server_address[1]}")
    server.registry = registry  # type: ignore[attr-defined]
    document = json.dumps(packument(registry.url, tarball)).encode()
    digest = hashlib.sha256(wheel_bytes).hexdigest()
    page = f'<html><body><a href="/files/{WHEEL}#sha256={digest}">{WHEEL}</a></body></html>'
    routes.update(
        {
            f"/{PACKAGE}": ("application/json", document),
            f"/{PACKAGE}/-/{PACKAGE}-{VERSION}.tgz": ("application/octet-stream", tarball),
            f"/simple/{PACKAGE}/": ("text/html", page.encode()),
            f"/files/{WHEEL}": ("application/octet-stream", wheel_bytes),
        }
    )
    with serving(server):
        yield registry


def _handler(routes: dict[str, tuple[str, bytes]]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._answer(with_body=True)

        def do_HEAD(self) -> None:  # uv asks first whether it may read a wheel in ranges
            self._answer(with_body=False)

        def _answer(self, *, with_body: bool) -> None:
            self.server.registry.requests.append(f"{self.command} {self.path}")  # type: ignore[attr-defined]
            path = self.path.split("?", 1)[0]
            if path.startswith("/simple/") and not path.endswith("/"):
                path += "/"
            if path not in routes:
                self.send_error(404)
                return
            kind, body = routes[path]
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if with_body:
                self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler
