"""No module reaches into another's private parts. Load-bearing direction: a file that uses a
private name (`_x`) it does not define itself — `transport._post(...)` on another file's class,
`from levelcode.mcp.http.streamable import _frame`, `streamable._frame` — fails here, so a seam
between two files is a public, named one and a file split by size alone shows up.

What counts as defined in a file: its own functions and classes, their methods, the attributes
its code assigns (`self._x = …`, `_X = …`), and a class's annotated fields. Reaching a private of
the standard library or a third-party package is allowed only where listed below, with why.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "levelcode"

# Private names of other code that LevelCode uses on purpose, and why.
FOREIGN_PRIVATES = {
    "_exit": "os._exit: leave a forked or exiting process without running the parent's cleanup",
    "_replace": "a namedtuple's public API (urllib's SplitResult), private in name only",
    "_pool": "httpx's transport pool: the OAuth address guard checks the address connected to",
    "_option_string_actions": "argparse's table of options, which it offers no public view of: "
    "the prompt on `levelcode`'s command line is found by knowing which options take a value, "
    "exactly as argparse will read them",
}


def defined_privates(tree: ast.Module) -> set[str]:
    """The private names a file defines: functions, classes, methods, assigned attributes and
    names, annotated fields."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {name for name in names if _private(name)}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def reaches_in(where: str, source: str) -> list[str]:
    """Every use in `source` of a private name it does not define (`self`/`cls` aside)."""
    tree = ast.parse(source)
    own = defined_privates(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("levelcode"):
            found += [f"{where}:{node.lineno}: imports {a.name}" for a in node.names if _private(a.name)]
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            base = node.value
            if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                continue
            if node.attr not in own and node.attr not in FOREIGN_PRIVATES:
                found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_reaches_into_another_modules_private_parts() -> None:
    problems = [
        problem
        for path in sorted(PACKAGE.rglob("*.py"))
        for problem in reaches_in(str(path.relative_to(PACKAGE.parent)), path.read_text(encoding="utf-8"))
    ]
    assert problems == [], "private names used outside the file that defines them:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("planted", "code", "caught"),
    [
        ("mcp/http/events.py", "link._post_message(None)", "link._post_message"),
        (
            "mcp/http/events.py",
            "from levelcode.mcp.http.wire import _private_helper",
            "imports _private_helper",
        ),
        (
            "mcp/live/hub.py",
            "from levelcode.mcp.live import connection\nconnection._tokens",
            "connection._tokens",
        ),
    ],
)
def test_a_planted_reach_is_caught(planted: str, code: str, caught: str) -> None:
    """The check can fail: one reach into another file's privates, added to a real module, is found."""
    path = PACKAGE / planted
    source = path.read_text(encoding="utf-8")
    assert reaches_in(planted, source) == []
    body = "\n    ".join(code.splitlines())
    found = reaches_in(planted, source + f"\n\ndef _probe(link: object) -> None:\n    {body}\n")
    assert any(caught in problem for problem in found), found


# --- processes are LevelCode's own `ChildProcess`, never passed off as asyncio's types ---------------

PROCESS_MODULES = (
    "platform/subprocess_pipes.py",
    "mcp/stdio/process.py",
    "mcp/stdio/pipe_transport.py",
    "tools/process_group.py",
)


def casts_to_asyncio(where: str, source: str) -> list[str]:
    """Every `cast(T, …)` in `source` whose T names one of asyncio's types (`asyncio.X`, or a
    name imported from asyncio), written as a name or as a string."""
    tree = ast.parse(source)
    from_asyncio = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("asyncio")
        for alias in node.names
    }
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args and _is_cast(node.func)):
            continue
        target = node.args[0]
        text = target.value if isinstance(target, ast.Constant) and isinstance(target.value, str) else ""
        written = text or ast.unparse(target)
        names = {part for part in re.split(r"[^\w.]+", written) if part}
        if any(name.startswith("asyncio.") or name.split(".")[0] in from_asyncio for name in names):
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def _is_cast(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "cast") or (
        isinstance(func, ast.Attribute) and func.attr == "cast"
    )


def test_no_process_passes_itself_off_as_an_asyncio_type() -> None:
    """Both process backends implement `ChildProcess` (platform/subprocess_pipes.py) for real: no
    `cast` to asyncio's types anywhere, and no `type: ignore` in the process modules."""
    problems = [
        problem
        for path in sorted(PACKAGE.rglob("*.py"))
        for problem in casts_to_asyncio(
            str(path.relative_to(PACKAGE.parent)), path.read_text(encoding="utf-8")
        )
    ]
    problems += [
        f"{module}: type: ignore"
        for module in PROCESS_MODULES
        if "type: ignore" in (PACKAGE / module).read_text(encoding="utf-8")
    ]
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize(
    "code",
    [
        "cast(asyncio.SubprocessTransport, joined)",
        "typing.cast('asyncio.WriteTransport', pipe)",
        "from asyncio import BaseTransport as Transport\ncast(Transport | None, joined)",
        "cast(list[asyncio.ReadTransport], pipes)",
    ],
)
def test_a_planted_cast_to_an_asyncio_type_is_caught(code: str) -> None:
    source = (PACKAGE / "mcp/stdio/process.py").read_text(encoding="utf-8")
    assert casts_to_asyncio("process.py", source) == []
    assert casts_to_asyncio("process.py", source + "\n" + code + "\n") != []


# --- the settings are read once, into `Settings`' typed fields; nothing else reads their keys ------

SETTINGS_READERS = ("policy/settings.py", "policy/settings_keys.py")
RAW_DOCUMENTS = ("user", "project")  # what Settings once carried: the documents as written


def raw_settings_reads(where: str, source: str) -> list[str]:
    """Every read of a settings document's keys in `source`: `<…settings>.user` or `.project`
    (the documents themselves), `.user.get(…)` / `.project.get(…)` / `.user[…]` on anything, and
    `user_settings.get(…)` / `user_settings[…]` (a document passed on under that name)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in RAW_DOCUMENTS:
            base = ast.unparse(node.value)
            if base.lower().endswith("settings"):
                found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
        document = _read_of(node)
        if document is not None and _is_raw_document(document):
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)[:80]}")
    return sorted(set(found))


def _read_of(node: ast.AST) -> ast.expr | None:
    """What `node` reads a key of: `X` in `X.get(…)` or `X[…]`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return node.func.value
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        return node.value
    return None


def _is_raw_document(node: ast.expr) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in RAW_DOCUMENTS
    return isinstance(node, ast.Name) and node.id in ("user_settings", "project_settings")


def test_no_module_outside_the_settings_reads_a_settings_key() -> None:
    """Settings are parsed once, at construction (policy/settings.py), with their problems collected
    there; every other module asks `Settings`' typed fields, so a key's meaning lives in one place."""
    problems = [
        problem
        for path in sorted(PACKAGE.rglob("*.py"))
        if str(path.relative_to(PACKAGE)) not in SETTINGS_READERS
        for problem in raw_settings_reads(
            str(path.relative_to(PACKAGE.parent)), path.read_text(encoding="utf-8")
        )
    ]
    assert problems == [], "settings keys read outside policy/settings*.py:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "code",
    [
        'settings.user.get("toolSearch")',
        'session.settings.project.get("model")',
        'self.settings.user["prices"]',
        'user_settings.get("apiKey")',
        "parse_profiles(start.settings.user, file='f')",
    ],
)
def test_a_planted_raw_settings_read_is_caught(code: str) -> None:
    source = (PACKAGE / "cli/start/chat_parts.py").read_text(encoding="utf-8")
    assert raw_settings_reads("chat_parts.py", source) == []
    assert raw_settings_reads("chat_parts.py", source + "\n" + code + "\n") != []


# --- the CLI reaches MCP through one door: `McpRuntime`, never the hub or the router behind it; ----
# --- trust through `WorkspaceTrust` (`McpRuntime.trust`), never the launch gate or the trust store --

CLI = PACKAGE / "cli"
BEHIND_THE_DOOR = (
    "levelcode.mcp.live.hub",
    "levelcode.mcp.calls.router",
    "levelcode.mcp.launch.gate",
    "levelcode.mcp.launch.trust_store",
)
BEHIND_THE_DOOR_ATTRIBUTES = ("hub", "router", "gate")


def reaches_behind_the_door(where: str, source: str) -> list[str]:
    """Every import in `source` of the hub's, the router's, the launch gate's or the trust store's
    module (or of a name from them), and every read or write of a `.hub`, `.router` or `.gate`
    attribute, whatever object it is on."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            modules = [node.module or ""] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            modules = []
        if any(module in BEHIND_THE_DOOR for module in modules):
            found.append(f"{where}:{node.lineno}: imports {', '.join(modules)}")
        if isinstance(node, ast.Attribute) and node.attr in BEHIND_THE_DOOR_ATTRIBUTES:
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_cli_reaches_mcp_only_through_the_runtime() -> None:
    """What the CLI needs of the servers running now (start, views, calls, tool search, progress,
    roots) it asks of `McpRuntime` (mcp/live/runtime.py); the hub and the router stay behind it.
    Its trust questions (`mcp trust`, `revoke`, `login`, `get`, `remove`) it asks of
    `WorkspaceTrust` (mcp/launch/workspace_trust.py, the runtime's `trust`), which is cheap to
    build without a hub; the launch gate and the trust store stay behind that."""
    problems = [
        problem
        for path in sorted(CLI.rglob("*.py"))
        for problem in reaches_behind_the_door(
            str(path.relative_to(PACKAGE.parent)), path.read_text(encoding="utf-8")
        )
    ]
    assert problems == [], "the CLI reaches behind McpRuntime:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "code",
    [
        "session.mcp.hub.still_starting()",
        "runtime.router.search_policy = None",
        "from levelcode.mcp.live.hub import McpHub",
        "from levelcode.mcp.calls import router",
        "import levelcode.mcp.calls.router",
        "from levelcode.mcp.launch.gate import LaunchGate, blocked_by_organisation",
        "from levelcode.mcp.launch.trust_store import TrustStore",
        "from levelcode.mcp.launch import trust_store",
        "import levelcode.mcp.launch.gate",
        "runtime.gate.may_start_unasked(spec)",
    ],
)
def test_a_planted_reach_behind_the_door_is_caught(code: str) -> None:
    planted = "cli/run.py"
    source = (PACKAGE / planted).read_text(encoding="utf-8")
    assert reaches_behind_the_door(planted, source) == []
    assert reaches_behind_the_door(planted, source + "\n" + code + "\n") != []
