"""Agent-facing names for MCP tools: `server__tool`, legal for every provider, unique, stable.

Pure: a function of the (server, tool) pairs and the reserved built-in names, nothing else.
Why it matters: names are echoed in the stored transcript, so one illegal name is an HTTP 400 on
every later turn. Rules (DESIGN D4):
- every name matches `^[A-Za-z0-9_-]{1,64}$` (the OpenAI-shaped limit, the stricter of the two);
- the server part never contains `__` and never ends in `_`, so the first `__` always separates
  server from tool, and each server's part is unique: `server__*` can match one server only;
- a name that had to change (illegal characters, too long, a collision) carries a stable hash of
  the raw server and tool joined by an escaped NUL, so `a b`+`c` and `a`+`b c` never collide;
- no name equals a reserved (built-in) name.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Iterable

PURE = True

MAX_NAME_LENGTH = 64
MAX_SERVER_PART = 24
SEPARATOR = "__"
HASH_LENGTH = 8
TOOL_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

_CLEAN_SERVER = re.compile(r"[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*")
_CLEAN_TOOL = re.compile(r"[A-Za-z0-9_-]+")
_SERVER_ILLEGAL_RUN = re.compile(r"[^A-Za-z0-9-]+")
_TOOL_ILLEGAL = re.compile(r"[^A-Za-z0-9_-]")
_NUL = "\x00"


def stable_digest(*parts: str) -> str:
    """Hex SHA-256 prefix of the parts, each escaped so the NUL separator cannot occur inside one."""
    escaped = (part.replace("\\", "\\\\").replace(_NUL, "\\0") for part in parts)
    return hashlib.sha256(_NUL.join(escaped).encode("utf-8", "surrogatepass")).hexdigest()[:HASH_LENGTH]


def is_clean_server_name(server: str) -> bool:
    return len(server) <= MAX_SERVER_PART and _CLEAN_SERVER.fullmatch(server) is not None


def server_part(server: str, attempt: int = 0) -> str:
    """The server's part of its tools' names: the name itself when clean, else a readable stem + hash."""
    if attempt == 0 and is_clean_server_name(server):
        return server
    stem = _SERVER_ILLEGAL_RUN.sub("_", server).strip("_")[: MAX_SERVER_PART - HASH_LENGTH - 1].rstrip("_")
    salt = (str(attempt),) if attempt else ()
    return f"{stem or 'srv'}_{stable_digest(server, *salt)}"


def tool_part(server: str, tool: str, room: int, attempt: int = 0) -> str:
    """The tool's part: the tool name itself when clean and short enough, else a stem + hash."""
    if attempt == 0 and len(tool) <= room and _CLEAN_TOOL.fullmatch(tool):
        return tool
    stem = _TOOL_ILLEGAL.sub("_", tool)[: room - HASH_LENGTH - 1]
    salt = (str(attempt),) if attempt else ()
    return f"{stem or 't'}_{stable_digest(server, tool, *salt)}"


def namespace_tool_name(server: str, tool: str) -> str:
    """The name one (server, tool) pair gets when nothing else competes for it."""
    prefix = server_part(server)
    return prefix + SEPARATOR + tool_part(server, tool, MAX_NAME_LENGTH - len(prefix) - len(SEPARATOR))


def split_tool_name(name: str) -> tuple[str, str] | None:
    """(server part, tool part) of an agent-facing MCP name, or None when it has no separator."""
    server, sep, tool = name.partition(SEPARATOR)
    return (server, tool) if sep and server else None


def assign_server_parts(servers: Iterable[str]) -> dict[str, str]:
    """A unique server part per distinct server; clean names keep themselves, then by name order."""
    distinct = sorted(set(servers), key=lambda s: (not is_clean_server_name(s), s))
    taken: set[str] = set()
    parts: dict[str, str] = {}
    for server in distinct:
        attempt = 0
        while (part := server_part(server, attempt)) in taken:
            attempt += 1
        taken.add(part)
        parts[server] = part
    return parts


def assign_tool_names(
    pairs: Iterable[tuple[str, str]], reserved: Collection[str] = ()
) -> dict[tuple[str, str], str]:
    """Unique legal names for every (server, tool) pair; none equals a reserved name.

    Deterministic: the result depends on the set of pairs only, not on their order, and is the
    same in every process (no use of Python's salted `hash()`).
    """
    unique = set(pairs)
    prefixes = assign_server_parts(server for server, _ in unique)
    ordered = sorted(unique, key=lambda p: (not _is_clean_pair(p, prefixes[p[0]]), p))
    taken = set(reserved)
    names: dict[tuple[str, str], str] = {}
    for server, tool in ordered:
        prefix = prefixes[server]
        room = MAX_NAME_LENGTH - len(prefix) - len(SEPARATOR)
        attempt = 0
        while (name := prefix + SEPARATOR + tool_part(server, tool, room, attempt)) in taken:
            attempt += 1
        taken.add(name)
        names[(server, tool)] = name
    return names


def _is_clean_pair(pair: tuple[str, str], prefix: str) -> bool:
    server, tool = pair
    return (
        prefix == server and tool_part(server, tool, MAX_NAME_LENGTH - len(prefix) - len(SEPARATOR)) == tool
    )
