"""An npm registry on 127.0.0.1 serving every package of this checkout's package-lock.json — the
reference servers (server-everything and the rest) and all they depend on — at exactly the locked
versions, so that a sandboxed `npx -y @modelcontextprotocol/server-everything@VERSION` installs
offline, through the egress filter, as it would from registry.npmjs.org.

Each packument is built from the installed package's own package.json (node_modules); each
tarball is the one `npm ci` fetched, read from the npm cache by its locked integrity, or, where
that cache is not readable (another user's), the installed folder packed again (its own
integrity then). Every request is recorded.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from tests.support.listener import serving
from tests.support.servers import ROOT

LOCK = ROOT / "package-lock.json"
NPM_CACHE = Path("/root/.npm/_cacache")


@dataclass(frozen=True)
class Installed:
    name: str
    version: str
    folder: Path  # under node_modules
    integrity: str  # as the lock has it


def locked_version(name: str) -> str:
    """The version of a top-level package the lock pins (`@modelcontextprotocol/server-everything`)."""
    packages = json.loads(LOCK.read_text())["packages"]
    return str(packages[f"node_modules/{name}"]["version"])


def installed_packages() -> list[Installed]:
    found = []
    for path, entry in json.loads(LOCK.read_text())["packages"].items():
        if not path or "integrity" not in entry:
            continue  # the root project, and links
        name = path.rsplit("node_modules/", 1)[1]
        found.append(Installed(name, entry["version"], ROOT / path, entry["integrity"]))
    return found


def cached_tarball(integrity: str, cache: Path = NPM_CACHE) -> bytes | None:
    """What `npm ci` fetched, from npm's content-addressed cache; None where it is not readable."""
    algorithm, digest = integrity.split("-", 1)
    hexed = base64.b64decode(digest).hex()
    try:
        return (cache / "content-v2" / algorithm / hexed[:2] / hexed[2:4] / hexed[4:]).read_bytes()
    except OSError:
        return None


def packed(folder: Path) -> bytes:
    """The installed folder as `npm pack` lays it out (`package/…`), without its own node_modules."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder)
            if "node_modules" in relative.parts or not path.is_file() or path.is_symlink():
                continue
            data = path.read_bytes()
            info = tarfile.TarInfo(f"package/{relative.as_posix()}")
            info.size, info.mode, info.mtime = len(data), path.stat().st_mode & 0o755, 0
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


@dataclass
class NpmLockRegistry:
    url: str
    packages: dict[str, list[Installed]] = field(default_factory=dict[str, list[Installed]])
    requests: list[str] = field(default_factory=list[str])
    _tarballs: dict[str, tuple[bytes, str]] = field(default_factory=dict[str, tuple[bytes, str]])

    def tarball(self, package: Installed) -> tuple[bytes, str]:
        """(bytes, integrity), the cached original where readable."""
        key = f"{package.name}@{package.version}"
        if key not in self._tarballs:
            cached = cached_tarball(package.integrity)
            if cached is not None:
                self._tarballs[key] = (cached, package.integrity)
            else:
                data = packed(package.folder)
                self._tarballs[key] = (
                    data,
                    "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode(),
                )
        return self._tarballs[key]

    def packument(self, name: str) -> dict[str, Any] | None:
        versions = {}
        for package in self.packages.get(name, []):
            manifest = json.loads((package.folder / "package.json").read_text())
            _data, integrity = self.tarball(package)
            dist = {"tarball": f"{self.url}/{name}/-/{_file(name, package.version)}", "integrity": integrity}
            versions[package.version] = {**manifest, "name": name, "version": package.version, "dist": dist}
        if not versions:
            return None
        latest = max(
            versions, key=lambda v: [int(p) if p.isdigit() else 0 for p in v.split("-")[0].split(".")]
        )
        return {"name": name, "dist-tags": {"latest": latest}, "versions": versions}

    def fetched(self, suffix: str) -> bool:
        return any(line.endswith(suffix) for line in self.requests)


def _file(name: str, version: str) -> str:
    return f"{name.rsplit('/', 1)[-1]}-{version}.tgz"


def _handler(registry: NpmLockRegistry) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            registry.requests.append(self.path)
            path = unquote(self.path.split("?", 1)[0]).lstrip("/")
            name, tarball, file = path.partition("/-/")
            if tarball:
                found = next(
                    (p for p in registry.packages.get(name, []) if _file(name, p.version) == file), None
                )
                self._send(registry.tarball(found)[0] if found else None, "application/octet-stream")
                return
            document = registry.packument(name)
            self._send(json.dumps(document).encode() if document else None, "application/json")

        def _send(self, body: bytes | None, kind: str) -> None:
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return

    return Handler


@contextmanager
def npm_lock_registry() -> Iterator[NpmLockRegistry]:
    registry = NpmLockRegistry("")
    for package in installed_packages():
        listed = registry.packages.setdefault(package.name, [])
        if all(other.version != package.version for other in listed):
            listed.append(package)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(registry))
    registry.url = f"http://127.0.0.1:{server.server_address[1]}"
    with serving(server):
        yield registry
