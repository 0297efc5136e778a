"""Pure modules take plain data and return plain data (STYLE §1): every rule in them is testable in
milliseconds, and I/O sits at the edges. Load-bearing direction: a pure module that reaches the
world must fail here — by importing a module that does (`os`, `fcntl`, `signal`, `subprocess`,
`socket`, `asyncio`, `shutil`, `tempfile` …, or any package outside the standard library), by
calling `open`, `print` or `input`, by reading, writing, listing or stat-ing the filesystem through
`pathlib` (`Path.read_text`, `.exists()`, `.mkdir()`, `Path.home()` …), or by importing, directly or
through any number of modules and packages, a module of levelcode that is not pure itself.

A module is pure when it says so: a module-level `PURE = True` (the one marker; grep
`^PURE = True`). The set of marked modules must be exactly the one docs/architecture.md lists, so
a marker dropped, or a module added to a pure package without one, fails here too.

Building and comparing `Path` values is pure; so is a `PurePath`. What the `pathlib` check cannot
see: a method named like a str's or a match's (`replace`, `group`, `open`, `stat`, `glob` …) on a
`Path` it cannot tell is one — a field of a class defined in another module, an item of a tuple.
Names that belong to `Path` alone (`read_text`, `exists`, `mkdir` …) are caught on any value.
"""

from __future__ import annotations

import ast
import itertools
import re
import sys
from collections.abc import Iterable, Iterator

import pytest

from tests.support.module_imports import (
    PACKAGE,
    ModuleSource,
    imported_modules,
    is_package,
    marker_of,
    package_sources,
    parsed,
    pure_modules,
    replaced,
    source_at,
)

ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"
PURE_TABLE_MARKER = "<!-- pure:"
PURE_CLAIM = re.compile(r"(?:^|[.;]\s+)Pure[.:]", re.MULTILINE)

# The standard library's ways to the world: files, processes, signals, the terminal, the network,
# the process's own state (sys: argv, stdio; platform: the machine), and imports made at run time.
WORLD_MODULES = frozenset(
    {
        *("os", "fcntl", "signal", "subprocess", "socket", "asyncio", "shutil", "tempfile"),
        *("select", "selectors", "pty", "termios", "tty", "resource", "pwd", "grp", "getpass"),
        *("glob", "fileinput", "filecmp", "mmap", "ctypes", "multiprocessing", "concurrent", "threading"),
        *("ssl", "http", "socketserver", "urllib.request", "webbrowser", "sqlite3", "logging"),
        *("sys", "platform", "importlib"),
    }
)
BUILTIN_IO = frozenset({"open", "print", "input", "__import__"})
PATH_CLASSES = frozenset({"Path", "PosixPath", "WindowsPath"})  # PurePath has no I/O to do
# Methods of `Path` that touch the filesystem (or the user's home, or the working folder).
PATH_ONLY_IO = frozenset(
    {
        *("read_text", "read_bytes", "write_text", "write_bytes", "iterdir", "rglob", "mkdir", "rmdir"),
        *("unlink", "touch", "symlink_to", "hardlink_to", "readlink", "lstat", "lchmod", "samefile"),
        *("exists", "is_file", "is_dir", "is_symlink", "is_mount", "is_socket", "is_fifo", "expanduser"),
        *("is_block_device", "is_char_device", "is_junction"),
    }
)
SHARED_NAME_IO = frozenset(
    {"open", "stat", "owner", "group", "glob", "walk", "rename", "replace", "resolve", "absolute", "chmod"}
    | {"cwd", "home", "link_to"}
)
PATH_RETURNING = frozenset({"with_suffix", "with_name", "with_stem", "joinpath", "relative_to", "resolve"})
PATH_RETURNING |= {"absolute", "expanduser", "cwd", "home"}


def world_imports(source: ModuleSource) -> Iterator[str]:
    """An import in `source` of a standard module that reaches the world, or of a package outside
    the standard library (`from urllib import request` is urllib.request)."""
    for node in ast.walk(parsed(source.text)):
        if isinstance(node, ast.Import):
            named = [(alias.name, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            module = node.module or ""
            named = [(module, f"{module}.{alias.name}") for alias in node.names]
        else:
            continue
        for module, dotted in named:
            top = module.split(".")[0]
            if top == "levelcode":
                continue
            if top not in sys.stdlib_module_names:
                yield f"{source.where}:{node.lineno}: pure module imports {module}, not standard library"
            elif any(
                name == banned or name.startswith(f"{banned}.")
                for name in (module, dotted)
                for banned in WORLD_MODULES
            ):
                yield f"{source.where}:{node.lineno}: pure module imports {dotted}"


def path_names(tree: ast.Module) -> set[str]:
    """Names and fields this module annotates as a `Path`, or binds to one it builds."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None and _names_a_path(node.annotation):
            names.add(node.arg)
        elif isinstance(node, ast.AnnAssign) and _names_a_path(node.annotation):
            target = node.target
            names.add(target.id if isinstance(target, ast.Name) else ast.unparse(target).rpartition(".")[2])
        elif isinstance(node, ast.Assign) and is_path(node.value, names):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
    return names


def _names_a_path(annotation: ast.expr) -> bool:
    return any(
        (isinstance(node, ast.Name) and node.id in PATH_CLASSES)
        or (isinstance(node, ast.Attribute) and node.attr in PATH_CLASSES)
        or (isinstance(node, ast.Constant) and isinstance(node.value, str) and "Path" in node.value)
        for node in ast.walk(annotation)
    )


def is_path(expr: ast.expr, names: set[str]) -> bool:
    """Whether `expr` is, as far as this module shows, a `Path` (or the class itself)."""
    if isinstance(expr, ast.Name):
        return expr.id in PATH_CLASSES or expr.id in names
    if isinstance(expr, ast.Attribute):
        return (
            expr.attr in PATH_CLASSES
            or expr.attr in names
            or (expr.attr == "parent" and is_path(expr.value, names))
        )
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
        return is_path(expr.left, names)
    if isinstance(expr, ast.Call):
        func = expr.func
        if isinstance(func, ast.Name):
            return func.id in PATH_CLASSES
        return isinstance(func, ast.Attribute) and (
            func.attr in PATH_CLASSES or (func.attr in PATH_RETURNING and is_path(func.value, names))
        )
    return False


def io_calls(source: ModuleSource) -> Iterator[str]:
    """Calls in `source` that read, write, list or stat the filesystem, or use the terminal."""
    tree = parsed(source.text)
    names = path_names(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in BUILTIN_IO:
            yield f"{source.where}:{node.lineno}: pure module calls {func.id}()"
        elif isinstance(func, ast.Attribute) and (
            func.attr in PATH_ONLY_IO or (func.attr in SHARED_NAME_IO and is_path(func.value, names))
        ):
            yield f"{source.where}:{node.lineno}: pure module does file I/O: {ast.unparse(func)}()"


def io_in(source: ModuleSource) -> list[str]:
    return [*world_imports(source), *io_calls(source)]


def impure_reach(sources: list[ModuleSource]) -> list[str]:
    """Every module of levelcode a pure module runs on import, directly or through others, that is
    not pure: the chain that reaches it. Importing a module runs its packages' `__init__`s too;
    those are followed through (what they import counts) and held to the pure module's rules."""
    pure = pure_modules(sources)
    by_name = {source.module: source for source in sources}
    found: list[str] = []
    for start in sorted(pure):
        chains = {module: [start, module] for module in _runs(start, by_name[start]) if module != start}
        todo = sorted(chains)
        while todo:
            module = todo.pop()
            if module in pure or module not in by_name:
                continue
            if not is_package(module):
                found.append(
                    f"{by_name[start].where}: pure module reaches {module}, which is not pure: "
                    + " → ".join(chains[module])
                )
                continue
            found += [f"{problem} (run by {start})" for problem in io_in(by_name[module])]
            for target in _runs(module, by_name[module]):
                if target not in chains:
                    chains[target] = [*chains[module], target]
                    todo.append(target)
    return found


def _runs(module: str, source: ModuleSource) -> set[str]:
    """The modules of levelcode importing `module` runs first: its packages, what it imports, and
    their packages."""
    targets = {module} | {target for _line, target in imported_modules(source.text, source.package)}
    return {
        ".".join(parts[:end])
        for target in targets
        if target == "levelcode" or target.startswith("levelcode.")
        for parts in [target.split(".")]
        for end in range(1, len(parts) + 1)
    }


def marker_problems(sources: Iterable[ModuleSource]) -> list[str]:
    """A `PURE` set to anything but True at a module's top level is a mistake, not a marker."""
    found = []
    for source in sources:
        value = marker_of(parsed(source.text))
        if value is not None and value is not True:
            found.append(
                f"{source.where}: `PURE = {value!r}`: the marker is `PURE = True`, or no `PURE` at all"
            )
    return found


def documented_pure(text: str, modules: Iterable[str]) -> frozenset[str]:
    """The pure modules docs/architecture.md lists, one row per package: "every module", "every
    module but a.py, b.py", or the modules by name (`a.py, b.py`); `modules`: all there are."""
    lines = text.split(PURE_TABLE_MARKER, 1)[1].splitlines()[1:]
    rows = [line for line in itertools.takewhile(str.strip, lines) if line.startswith("|")][2:]
    listed: set[str] = set()
    modules = list(modules)
    for row in rows:
        folder, cell = (value.strip().strip("`") for value in row.strip("|").split("|")[:2])
        package = "levelcode." + folder.replace("/", ".")
        members = {m for m in modules if m.rpartition(".")[0] == package and not is_package(m)}
        if cell == "every module" or cell.startswith("every module but "):
            left_out = _file_names(cell.removeprefix("every module").removeprefix(" but "))
            listed |= {m for m in members if m.rpartition(".")[2] not in left_out}
        else:
            listed |= {f"{package}.{stem}" for stem in _file_names(cell)}
    return frozenset(listed)


def _file_names(cell: str) -> set[str]:
    return {word.strip().strip("`").removesuffix(".py") for word in cell.split(",") if word.strip()}


def _documented(sources: list[ModuleSource], text: str | None = None) -> frozenset[str]:
    text = ARCHITECTURE.read_text(encoding="utf-8") if text is None else text
    return documented_pure(text, (source.module for source in sources))


def test_the_pure_modules_are_exactly_those_the_architecture_doc_lists() -> None:
    """Each pure module says `PURE = True`, and docs/architecture.md names the same set: a module
    one has and the other lacks fails, with its name."""
    sources = package_sources()
    marked, documented = pure_modules(sources), _documented(sources)
    assert sorted(documented - marked) == [], "listed pure in docs/architecture.md, no `PURE = True`"
    assert sorted(marked - documented) == [], "`PURE = True`, not listed in docs/architecture.md"


def test_every_marker_says_true() -> None:
    problems = marker_problems(package_sources())
    assert problems == [], "\n".join(problems)


def test_no_pure_module_reaches_the_world() -> None:
    sources = package_sources()
    pure = pure_modules(sources)
    problems = [problem for source in sources if source.module in pure for problem in io_in(source)]
    assert problems == [], "pure modules that do I/O:\n" + "\n".join(problems)


def test_every_module_a_pure_module_runs_is_pure() -> None:
    problems = impure_reach(package_sources())
    assert problems == [], "\n".join(problems)


def unmarked_claims(sources: Iterable[ModuleSource]) -> list[str]:
    """A module whose docstring says it is pure (a sentence that starts `Pure:` or `Pure.`) and
    has no marker: a claim nothing checks."""
    pure = pure_modules(sources)
    return [
        f"{source.where}: its docstring says `Pure`, and it has no `PURE = True`"
        for source in sources
        if source.module not in pure and PURE_CLAIM.search(ast.get_docstring(parsed(source.text)) or "")
    ]


def test_a_module_that_says_it_is_pure_is_marked() -> None:
    problems = unmarked_claims(package_sources())
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize(
    ("planted", "code", "found"),
    [
        ("core/json_text.py", "import os", "pure module imports os"),
        ("policy/network_hosts.py", "import socket", "pure module imports socket"),
        ("mcp/calls/policy.py", "import fcntl", "pure module imports fcntl"),
        ("mcp/config/specs.py", "import subprocess", "pure module imports subprocess"),
        ("mcp/launch/trust.py", "from signal import SIGTERM", "pure module imports signal.SIGTERM"),
        ("core/messages.py", "import asyncio", "pure module imports asyncio"),
        ("core/outcome.py", "import shutil", "pure module imports shutil"),
        ("policy/settings.py", "from tempfile import mkdtemp", "pure module imports tempfile.mkdtemp"),
        ("mcp/registry/rules.py", "from urllib import request", "pure module imports urllib.request"),
        ("mcp/protocol/jsonrpc.py", "from os.path import exists", "pure module imports os.path.exists"),
        ("core/errors.py", "import httpx2", "pure module imports httpx2, not standard library"),
        ("core/outcome.py", "return open('x').read()", "pure module calls open()"),
        ("core/progress.py", "print('hi')", "pure module calls print()"),
        ("core/outcome.py", "Path('x').read_text()", "file I/O: Path('x').read_text()"),
        ("mcp/launch/plan.py", "workspace = Path('w')\n    workspace.open()", "file I/O: workspace.open()"),
        ("mcp/launch/plan.py", "(Path('w') / 'x').stat()", "file I/O: (Path('w') / 'x').stat()"),
        ("policy/settings.py", "Path.home()", "file I/O: Path.home()"),
        ("policy/settings.py", "Path('x').parent.resolve()", "file I/O: Path('x').parent.resolve()"),
        ("mcp/launch/status.py", "thing.workspace.exists()", "file I/O: thing.workspace.exists()"),
        ("mcp/config/specs.py", "folder.mkdir(parents=True)", "file I/O: folder.mkdir()"),
        ("core/attachments.py", "anything.write_text('x')", "file I/O: anything.write_text()"),
    ],
)
def test_a_pure_module_reaching_the_world_is_caught(planted: str, code: str, found: str) -> None:
    """Each rule can fail: a real pure module with one forbidden import or call added inside a
    function body is reported; the module as it is passes."""
    original = source_at(planted)
    assert original.module in pure_modules(package_sources())
    assert io_in(original) == []
    problems = io_in(original.changed(code))
    assert any(found in problem for problem in problems), problems


@pytest.mark.parametrize(
    "code",
    [
        "return 'a b'.replace(' ', '_')",
        "import re\n    return re.match('a', 'a').group(0)",
        "return Path('a') / 'b' == Path('a/b')",
        "return Path('a').parent.name + Path('a.py').with_suffix('.txt').stem",
        "from pathlib import PurePosixPath\n    return PurePosixPath('a').is_relative_to('b')",
        "from collections import Counter\n    return Counter('ab').most_common()",
        "import json\n    return json.loads('{}')",
    ],
)
def test_building_and_comparing_paths_and_plain_text_pass(code: str) -> None:
    """Must pass: building and comparing paths, and methods of str and re that share a name with
    one of `Path`'s (`replace`, `group`), are not I/O."""
    assert io_in(source_at("core/outcome.py").changed(code)) == []


@pytest.mark.parametrize(
    ("planted", "code", "chain"),
    [
        # allowed by the layer map, but files.py reads the configuration files
        (
            "mcp/calls/policy.py",
            "from levelcode.mcp.config import files",
            "policy → levelcode.mcp.config.files",
        ),
        (
            "mcp/config/specs.py",
            "from levelcode.platform import process_groups",
            "→ levelcode.platform.process_groups",
        ),
        (
            "mcp/launch/trust.py",
            "from levelcode.mcp.launch import trust_store",
            "→ levelcode.mcp.launch.trust_store",
        ),
    ],
)
def test_a_pure_module_importing_an_impure_one_is_caught(planted: str, code: str, chain: str) -> None:
    changed = source_at(planted).changed(code)
    found = impure_reach(replaced(package_sources(), changed))
    assert any(chain in problem and changed.where in problem for problem in found), found


def test_impurity_two_imports_away_is_caught() -> None:
    """Transitively: a pure module that imports a module which lost its purity (core/errors.py
    now importing platform/paths.py) is caught too, with the chain that reaches it; and so is a
    pure module whose own package's `__init__` imports an impure module."""
    sources = package_sources()
    errors = source_at("core/errors.py")  # core/json_text.py imports it
    unmarked = ModuleSource(
        errors.where, errors.module, errors.package, errors.text.replace("PURE = True\n", "")
    )
    changed = unmarked.changed("from levelcode.platform import paths")
    found = impure_reach(replaced(sources, changed))
    assert any("core/json_text.py" in p and "→ levelcode.core.errors" in p for p in found), found
    init = source_at("mcp/config/__init__.py").changed("from levelcode.platform import process_groups")
    found = impure_reach(replaced(sources, init))
    assert any(
        "mcp/config/specs.py" in p and "levelcode.mcp.config → levelcode.platform.process_groups" in p
        for p in found
    ), found


def test_a_module_without_its_marker_is_caught() -> None:
    """A pure module that lost its marker differs from the doc's list; so does a new module in a
    package the doc says is pure throughout; so does a marker the doc does not list, and a
    docstring that says `Pure:` with no marker."""
    sources = package_sources()
    outcome = source_at("core/outcome.py")
    unmarked = ModuleSource(
        outcome.where, outcome.module, outcome.package, outcome.text.replace("PURE = True\n", "")
    )
    changed = replaced(sources, unmarked)
    assert _documented(changed) - pure_modules(changed) == {"levelcode.core.outcome"}
    new = ModuleSource(
        "levelcode/core/new_words.py", "levelcode.core.new_words", "levelcode.core", '"""Words."""\n'
    )
    assert "levelcode.core.new_words" in _documented([*sources, new]) - pure_modules([*sources, new])
    stray = source_at("mcp/live/hub.py").changed("pass\nPURE = True")
    assert "levelcode.mcp.live.hub" in pure_modules(replaced(sources, stray)) - _documented(sources)
    claim = ModuleSource(new.where, new.module, new.package, '"""Words.\n\nPure: text in, text out.\n"""\n')
    assert unmarked_claims([claim]) != []


def test_a_marker_other_than_true_is_caught() -> None:
    outcome = source_at("core/outcome.py")
    for wrong in ("PURE = False", "PURE = 1", "PURE = 'yes'"):
        planted = ModuleSource(
            outcome.where, outcome.module, outcome.package, outcome.text.replace("PURE = True", wrong)
        )
        assert marker_problems([planted]) != [], wrong


def test_a_doc_that_differs_from_the_markers_is_caught() -> None:
    sources = package_sources()
    text = ARCHITECTURE.read_text(encoding="utf-8")
    row = "| mcp/config | every module but files.py |"
    assert row in text
    assert "levelcode.mcp.config.files" in _documented(
        sources, text.replace(row, "| mcp/config | every module |")
    )
