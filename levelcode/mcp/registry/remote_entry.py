"""A registry's remote server made into an entry: its URL with the template's `{variables}` filled
in, its headers (secret ones as `${VAR}` references), `"type": "sse"` for the older transport,
and the `registry` origin. The entry then goes through the same checks, gates and sign-in as one
written by hand: OAuth is found when it connects (`levelcode mcp login NAME`).

Pure. Load-bearing direction (the attack): a value filled into a URL template never chooses the
host — a variable in the host fills whole labels in front of a fixed parent domain, one in the
port only digits, one in the path a single segment — and a remote reached over plain `http://`
from another machine is refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from levelcode.core.errors import RegistryError
from levelcode.mcp.config.registry_entry import REGISTRY_KEY, RegistryOrigin
from levelcode.mcp.config.remote_urls import is_plaintext_remote
from levelcode.mcp.registry.documents import Input, Remote, ServerDetail
from levelcode.mcp.registry.entry import Made
from levelcode.mcp.registry.inputs import TEMPLATE_VARIABLE, Filler, Need, as_required, environment_reference

PURE = True

HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
HOST_LABELS = re.compile(
    r"^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$"
)
PATH_SEGMENT = re.compile(r"^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$")
PORT = re.compile(r"^\d{1,5}$")
FIXED_PARENT = re.compile(r"^\.[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+(:\d+)?$")


def remote_entry(server: ServerDetail, remote: Remote, filler: Filler, origin: RegistryOrigin) -> Made:
    where = f"{server.name} {server.version}"
    url = filled_url(remote.url, remote.variables, filler, where)
    entry: dict[str, object] = {"type": "sse", "url": url} if remote.transport == "sse" else {"url": url}
    headers: dict[str, str] = {}
    for header in remote.headers:
        if not HEADER_NAME.match(header.name):
            raise RegistryError(f"{where}: {header.name!r} is not a header name")
        reference = environment_reference(f"{server.name.rsplit('/', 1)[-1]}_{header.name}")
        need = Need(header.name, f"header {header.name}", header.input, reference)
        values = filler.values(need)
        if values:
            headers[header.name] = values[0]
    if headers:
        entry["headers"] = headers
    entry[REGISTRY_KEY] = origin.as_json()
    return Made(entry)


def filled_url(template: str, variables: Mapping[str, Input], filler: Filler, where: str) -> str:
    """The URL with each `{variable}` filled, each value held to where it stands (see above)."""
    scheme, sep, rest = template.partition("://")
    if not sep or scheme not in ("https", "http"):
        raise RegistryError(f"{where}: its URL {template!r} does not start with https:// (or http://)")
    authority_end = len(re.split(r"[/?#]", rest, maxsplit=1)[0])
    if "@" in rest[:authority_end]:
        raise RegistryError(f"{where}: its URL {template!r} has a user name before the host")
    pieces: list[str] = []
    at = 0
    for match in TEMPLATE_VARIABLE.finditer(rest):
        name = match.group(1)
        if name not in variables:
            raise RegistryError(f"{where}: its URL names {{{name}}}, which it does not declare")
        need = Need(name, f"URL variable {{{name}}}", variables[name])
        if need.secret:
            raise RegistryError(
                f"{where}: its URL holds a secret ({{{name}}}): a URL is written down and logged"
            )
        values = filler.values(need if need.input.required else as_required(need))
        value = values[0] if values else match.group(0)
        if values:
            _fits(value, rest, match, authority_end, where)
        pieces += [rest[at : match.start()], value]
        at = match.end()
    return _reachable(f"{scheme}://{''.join([*pieces, rest[at:]])}", where)


def _reachable(url: str, where: str) -> str:
    """The filled URL, when it names a host and is not plain http:// to another machine."""
    if not urlsplit(url).hostname:
        raise RegistryError(f"{where}: its URL {url!r} names no host")
    if is_plaintext_remote(url):
        raise RegistryError(
            f"{where}: its URL {url} is plain http:// to another machine: headers, tokens and tool "
            "calls could be read and changed on the way"
        )
    return url


def _fits(value: str, rest: str, match: re.Match[str], authority_end: int, where: str) -> None:
    """Whether `value` may stand where `match` is: it never moves the host."""
    name = f"{{{match.group(1)}}}"
    if match.start() >= authority_end:
        if not PATH_SEGMENT.match(value) or value in (".", ".."):
            raise RegistryError(f"{where}: {value!r} for {name} is not one path segment (no / ? # % @)")
        return
    before, after = rest[: match.start()], rest[match.end() : authority_end]
    if before.endswith(":"):
        if not PORT.match(value):
            raise RegistryError(f"{where}: {value!r} for {name} is not a port number")
        return
    fixed_parent = (before == "" or before.endswith(".")) and FIXED_PARENT.match(after)
    if not fixed_parent or "{" in after:
        raise RegistryError(
            f"{where}: its URL template lets {name} choose the host; LevelCode fills a host "
            "variable only in front of a fixed domain (https://{tenant}.example.com/…)"
        )
    if not HOST_LABELS.match(value):
        raise RegistryError(f"{where}: {value!r} for {name} is not a host name label")
