"""MCP servers the user already set up for other tools (Claude Desktop, Claude Code, Cursor, VS Code),
turned into LevelCode server entries, with the reason for every one that cannot be; where each goes is
config/import_plan.py's to decide.

Pure: takes parsed documents with their paths and returns candidates, skips and problems; never reads
or writes a file. Never expands a value: a `${…}` reference LevelCode would not resolve the way the
other tool did makes the entry a skip, so nothing broken is ever offered. Every entry passes LevelCode's
own `parse_server_entry` before it is offered.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from levelcode.core.errors import ConfigProblem
from levelcode.core.json_text import is_absent
from levelcode.mcp.config.import_tools import TOOL_LABELS, TOOLS, Tool
from levelcode.mcp.config.server_entry import parse_server_entry
from levelcode.mcp.config.specs import Provenance, ServerSpec
from levelcode.mcp.config.tiers import SERVERS_KEY

PURE = True

# Where the servers sit in each kind of file.
Layout = Literal["mcpServers", "claude-json", "servers", "vscode-settings"]

_STDIO_FIELDS = ("command", "args", "env", "cwd")
_HTTP_FIELDS = ("url", "headers")
_HTTP_TYPES = frozenset({"http", "streamable-http", "streamableHttp"})
# Keys whose loss would leave a server that starts but lacks what it needs: better not offered.
_BLOCKING_KEYS = {
    "envFile": "loads variables from an env file (envFile), which LevelCode does not read",
    "headersHelper": "gets its headers by running a command (headersHelper), which LevelCode does not do",
}
_REFERENCE = re.compile(r"\$\{([^}]*)\}")
_SHELL_REFERENCE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?")  # ${VAR} or ${VAR:-default}
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Variables VS Code (and Cursor, built on it) fill in themselves; nothing LevelCode can reproduce.
_EDITOR_VARIABLES = frozenset(
    {
        "workspaceFolder",
        "workspaceFolderBasename",
        "workspaceRoot",
        "userHome",
        "pathSeparator",
        "/",
        "cwd",
        "execPath",
        "file",
        "fileBasename",
        "fileBasenameNoExtension",
        "fileDirname",
        "fileDirnameBasename",
        "fileExtname",
        "fileWorkspaceFolder",
        "relativeFile",
        "relativeFileDirname",
        "lineNumber",
        "selectedText",
        "defaultBuildTask",
    }
)


@dataclass(frozen=True)
class SourceFile:
    tool: Tool
    path: Path
    repo_authored: bool  # a workspace's file: written by whoever wrote the repository
    layout: Layout
    comments: bool = False  # JSON with comments and trailing commas (VS Code's format)


@dataclass(frozen=True)
class SearchRoots:
    """Where to look; injectable so tests point every tool at a temporary home."""

    home: Path
    workspace: Path
    platform: str = "linux"  # as sys.platform spells it
    config_home: Path | None = None  # $XDG_CONFIG_HOME
    appdata: Path | None = None  # %APPDATA%


@dataclass(frozen=True)
class Origin:
    tool: Tool
    file: str
    repo_authored: bool
    project: str | None = None  # the ~/.claude.json section for one project

    def describe(self) -> str:
        where = f"{self.file} (for {self.project})" if self.project else self.file
        return f"{TOOL_LABELS[self.tool]} · {where}"


@dataclass(frozen=True)
class Candidate:
    name: str
    entry: Mapping[str, object]  # exactly what would go under mcpServers.<name>
    spec: ServerSpec  # what LevelCode's own parser made of `entry`
    origin: Origin
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Skipped:
    name: str
    origin: Origin
    reason: str


@dataclass(frozen=True)
class Elsewhere:
    """Servers the user added in another tool for another project (Claude Code's local scope):
    named, never offered here."""

    origin: Origin  # its `project` is the other project's folder
    names: tuple[str, ...]


@dataclass(frozen=True)
class SourceReading:
    candidates: tuple[Candidate, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    problems: tuple[ConfigProblem, ...] = ()
    elsewhere: tuple[Elsewhere, ...] = ()


class _Refusal(Exception):
    """One entry cannot be imported faithfully; the message says why."""


def app_config_dir(roots: SearchRoots) -> Path:
    """Where desktop apps keep per-user files: Application Support, %APPDATA%, or the XDG config dir."""
    if roots.platform == "darwin":
        return roots.home / "Library" / "Application Support"
    if roots.platform.startswith(("win", "cygwin")):
        return roots.appdata or roots.home / "AppData" / "Roaming"
    return roots.config_home or roots.home / ".config"


def source_files(roots: SearchRoots, tools: Sequence[Tool] = TOOLS) -> list[SourceFile]:
    """Every file to read, the user's own before the repository's; one path is read once."""
    app, home, ws = app_config_dir(roots), roots.home, roots.workspace
    known = [
        SourceFile("claude-desktop", app / "Claude" / "claude_desktop_config.json", False, "mcpServers"),
        SourceFile("claude-code", home / ".claude.json", False, "claude-json"),
        SourceFile("cursor", home / ".cursor" / "mcp.json", False, "mcpServers", comments=True),
        SourceFile("vscode", app / "Code" / "User" / "mcp.json", False, "servers", comments=True),
        SourceFile("vscode", app / "Code" / "User" / "settings.json", False, "vscode-settings", True),
        SourceFile("claude-code", ws / ".mcp.json", True, "mcpServers"),
        SourceFile("cursor", ws / ".cursor" / "mcp.json", True, "mcpServers", comments=True),
        SourceFile("vscode", ws / ".vscode" / "mcp.json", True, "servers", comments=True),
    ]
    chosen: dict[Path, SourceFile] = {}
    for source in known:
        if source.tool in tools:
            chosen.setdefault(source.path, source)  # workspace == home: the user's file, read once
    return list(chosen.values())


def read_source(source: SourceFile, doc: object, *, project_keys: Sequence[str] = ()) -> SourceReading:
    """The servers one parsed file defines, each converted and validated, or skipped with the reason;
    `project_keys`: the names Claude Code may give this workspace in ~/.claude.json, best first."""
    file = str(source.path)
    if is_absent(doc):
        return SourceReading()
    if not isinstance(doc, Mapping):
        return SourceReading(problems=(ConfigProblem(file, "(top level)", "expected a JSON object"),))
    candidates: list[Candidate] = []
    skipped: list[Skipped] = []
    problems: list[ConfigProblem] = []
    maps, elsewhere = _server_maps(source, doc, project_keys)
    for key, project, servers in maps:
        if servers is None:
            continue
        if not isinstance(servers, Mapping):
            problems.append(ConfigProblem(file, key, "expected an object of servers"))
            continue
        origin = Origin(source.tool, file, source.repo_authored, project)
        for name, raw in servers.items():
            outcome = convert_server(str(name), raw, origin, key=f"{key}.{name}")
            if isinstance(outcome, Candidate):
                candidates.append(outcome)
            else:
                skipped.append(outcome)
    return SourceReading(tuple(candidates), tuple(skipped), tuple(problems), elsewhere)


ServerMaps = list[tuple[str, str | None, object]]  # (key, project, raw server map)


def _server_maps(
    source: SourceFile, doc: Mapping[str, object], project_keys: Sequence[str]
) -> tuple[ServerMaps, tuple[Elsewhere, ...]]:
    """Each place in the document that holds servers for this workspace, and (~/.claude.json) the
    other projects that have servers of their own."""
    if source.layout == "servers":
        return [("servers", None, doc.get("servers"))], ()
    if source.layout == "vscode-settings":
        mcp = doc.get("mcp")
        return ([("mcp.servers", None, mcp.get("servers"))] if isinstance(mcp, Mapping) else []), ()
    users: ServerMaps = [(SERVERS_KEY, None, doc.get(SERVERS_KEY))]
    projects = doc.get("projects") if source.layout == "claude-json" else None
    if not isinstance(projects, Mapping):
        return users, ()
    # Claude Code's "local" scope: servers the user added for one project. This workspace's come
    # first (they win in Claude Code too); the other projects' are only named.
    with_servers = {
        str(path): section[SERVERS_KEY]
        for path, section in projects.items()
        if isinstance(section, Mapping) and section.get(SERVERS_KEY)
    }
    here = next((key for key in project_keys if key in with_servers), None)
    mine: ServerMaps = [] if here is None else [(f"projects.{here}.{SERVERS_KEY}", here, with_servers[here])]
    file = str(source.path)
    elsewhere = tuple(
        Elsewhere(Origin(source.tool, file, False, path), tuple(str(name) for name in servers))
        for path, servers in with_servers.items()
        if path != here and isinstance(servers, Mapping)
    )
    return [*mine, *users], elsewhere


def convert_server(name: str, raw: object, origin: Origin, *, key: str) -> Candidate | Skipped:
    """One server of another tool as LevelCode's entry, checked by LevelCode's own parser."""
    try:
        entry, notes = convert_entry(raw, origin.tool)
    except _Refusal as refusal:
        return Skipped(name, origin, str(refusal))
    problems: list[ConfigProblem] = []
    provenance = Provenance("user", origin.file)
    spec = parse_server_entry(name, entry, provenance=provenance, key=key, problems=problems)
    messages = [_relative_message(problem, key) for problem in problems]
    if spec is None:
        return Skipped(name, origin, "; ".join(messages))
    return Candidate(name, entry, spec, origin, tuple(notes + messages))


def convert_entry(raw: object, tool: Tool) -> tuple[dict[str, object], list[str]]:
    """The fields LevelCode has, carried over with only `${env:X}` rewritten to `${X}`; notes name the
    fields left behind. Raises _Refusal when the entry cannot be carried over faithfully."""
    if not isinstance(raw, Mapping):
        raise _Refusal("expected an object with `command` (stdio) or `url` (HTTP)")
    for blocking, reason in _BLOCKING_KEYS.items():
        if blocking in raw:
            raise _Refusal(f"{reason}; the server would start without it")
    fields = _transport_fields(raw)
    entry = {key: _translate_field(key, raw[key], tool) for key in fields if key in raw}
    left = [str(key) for key in raw if key not in fields and key != "type"]
    return entry, [f"`{key}` not imported: LevelCode has no such setting" for key in left]


def _transport_fields(raw: Mapping[object, object]) -> tuple[str, ...]:
    declared = raw.get("type")
    if declared == "sse":
        return ("type", *_HTTP_FIELDS)  # the legacy HTTP+SSE transport: the type must come along
    if declared == "stdio":
        return _STDIO_FIELDS
    if declared in _HTTP_TYPES:
        return _HTTP_FIELDS
    if declared is not None:
        raise _Refusal(f'type {declared!r} is not a transport LevelCode knows (expected "stdio" or "http")')
    return _STDIO_FIELDS + _HTTP_FIELDS  # undeclared: LevelCode's parser decides, as for its own files


def _translate_field(key: str, value: object, tool: Tool) -> object:
    if isinstance(value, str):
        return _translate(value, key, tool)
    if key == "args" and isinstance(value, list):
        return [
            _translate(item, f"arg {index}", tool) if isinstance(item, str) else item
            for index, item in enumerate(value, 1)
        ]
    if key in ("env", "headers") and isinstance(value, Mapping):
        label = "env" if key == "env" else "header"
        return {
            str(name): _translate(item, f"{label} {name}", tool) if isinstance(item, str) else item
            for name, item in value.items()
        }
    return value  # a wrong type: LevelCode's parser names it


def _translate(text: str, where: str, tool: Tool) -> str:
    """`text` with `${env:X}` written `${X}`; a reference LevelCode would not resolve as `tool` did
    refuses the entry. LevelCode fills in `${X}` from the environment in command, args, env, url and
    headers (config/launch_expansion.py); `cwd` is the one field it does not, and no tool puts one
    there that LevelCode's parser would accept as a path."""
    label = TOOL_LABELS[tool]

    def rewrite(match: re.Match[str]) -> str:
        inner = match.group(1)
        kind, kept = _classify(inner, tool)
        if kind == "input":
            raise _Refusal(
                f"{where} uses ${{{inner}}}, a value {label} asks you for when the server starts, "
                "and LevelCode cannot; put the value in an environment variable and add the server "
                "yourself with ${NAME} in its place"
            )
        if kind == "editor":
            raise _Refusal(
                f"{where} uses ${{{inner}}}, which {label} fills in itself and LevelCode does not; "
                "add the server yourself with the value written out"
            )
        if kind == "environment" and where == "cwd":
            raise _Refusal(
                f"{where} uses ${{{inner}}}, which {label} fills in from your environment; LevelCode "
                "does not in cwd, so the server would start in a folder of that name"
            )
        return "${" + kept + "}"

    return _REFERENCE.sub(rewrite, text)


def _classify(inner: str, tool: Tool) -> tuple[Literal["literal", "environment", "input", "editor"], str]:
    """What `tool` makes of `${inner}`, and the text LevelCode should keep inside the braces."""
    if tool == "claude-code":
        # Claude Code expands ${VAR} and ${VAR:-default} in command, args, env, url and headers.
        return ("environment", inner) if _SHELL_REFERENCE.fullmatch(inner) else ("literal", inner)
    if tool in ("cursor", "vscode"):
        prefix, colon, rest = inner.partition(":")
        if colon and prefix == "env" and _ENV_NAME.fullmatch(rest):
            return "environment", rest
        if colon and prefix == "input":
            return "input", inner
        if (colon and _ENV_NAME.fullmatch(prefix) and not rest.startswith("-")) or inner in _EDITOR_VARIABLES:
            return "editor", inner  # ${config:…}, ${command:…}, ${workspaceFolder}, …
    return "literal", inner  # Claude Desktop expands nothing; other text stays as written


def _relative_message(problem: ConfigProblem, key: str) -> str:
    where = problem.key.removeprefix(key).lstrip(".")
    message = problem.message.removesuffix("; this server is not loaded")
    return f"{where}: {message}" if where else message
