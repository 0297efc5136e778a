"""A server entry's `"registry"` key: where an entry added with `levelcode mcp add … --from-registry`
came from — the registry's URL, the server's name there and the exact version — as plain data.

Pure: takes the parsed JSON value, returns the origin and reports problems; never contacts a
registry. The key says where the entry came from; it does not change what runs, so the launch
fingerprint does not cover it (what runs is the command, arguments and env, as for any entry). A
repository's entry can write it too: views show it as what the entry says.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

PURE = True

REGISTRY_KEY = "registry"
# The registry's own rule for a server name: a reverse-DNS namespace, one slash, a name.
SERVER_NAME = re.compile(r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$")

Note = Callable[[str, str], None]  # (sub-key, message): a problem under the entry's `registry` key


@dataclass(frozen=True)
class RegistryOrigin:
    """The registry an entry came from, and the server and version it was made from."""

    url: str  # the registry's base URL, as LevelCode asked it (no trailing slash)
    name: str  # `io.github.owner/server`
    version: str  # exact, as the registry published it

    @property
    def publisher(self) -> str:
        """The namespace the registry verified the publisher owns: `io.github.owner`."""
        return self.name.split("/", 1)[0]

    def describe(self) -> str:
        """`io.github.owner/server 1.2.3 from https://registry… (publisher io.github.owner)`."""
        return f"{self.name} {self.version} from {self.url} (publisher {self.publisher})"

    def as_json(self) -> dict[str, str]:
        return {"url": self.url, "name": self.name, "version": self.version}


def parse_registry_entry(raw: object, note: Note) -> RegistryOrigin | None:
    """The origin an entry names; None (with a problem noted) when the key is absent or malformed.
    A malformed origin never keeps the server from loading: it only says where it came from."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        note("", 'expected {"url": …, "name": …, "version": …} (where the entry came from); ignored')
        return None
    for key in sorted(str(k) for k in raw if k not in ("url", "name", "version")):
        note(key, "unknown key, ignored")
    url, name, version = raw.get("url"), raw.get("name"), raw.get("version")
    if not isinstance(url, str) or not url.startswith(("https://", "http://")):
        note("url", "expected the registry's http(s) URL; the origin is ignored")
        return None
    if not isinstance(name, str) or not SERVER_NAME.match(name):
        note("name", "expected a registry server name such as io.github.owner/server; the origin is ignored")
        return None
    if not isinstance(version, str) or not version.strip():
        note("version", "expected the exact version it was added at; the origin is ignored")
        return None
    return RegistryOrigin(url.rstrip("/"), name, version)
