"""Finds and hashes what a repository server's launch runs, right before it starts: the program
after the same PATH lookup the server's own spawn does, the workspace files its words name
(entries.py reads the words), and the files the interpreter can import from the folder it
looks in first — a Python script's folder (the cwd for `python -m`/`-c`, the project for `uv run`
and `uvx --from .`), a node script's folder and the `node_modules` beside it
(launch/importable_files.py lists them). Returns plain data, `LaunchFacts`; trust.py judges it.

Reads files, and only those inside the workspace (the user's own files elsewhere are theirs: a
symlink leaving the workspace is recorded by where it points); never runs anything, never opens
a FIFO or device. What it hashed can still change in the moment between this check and the spawn
(a check-to-use window); modules found through other path entries (a venv's site-packages,
`PYTHONPATH`, `NODE_PATH`) are not covered.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from collections.abc import Callable, Mapping
from pathlib import Path

from levelcode.core.errors import ServerStartError
from levelcode.mcp.config.environment import expand_references
from levelcode.mcp.config.specs import ServerSpec, StdioServerSpec
from levelcode.mcp.launch.entries import plan_command
from levelcode.mcp.launch.importable_files import (
    NODE_MODULES,
    Listing,
    node_loadable,
    node_packages,
    python_importable,
)
from levelcode.mcp.launch.plan import launch_argv, launch_cwd
from levelcode.mcp.launch.trust import CUT_NOTE, MISSING, LaunchFacts, needs_launch_approval

MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_PACKAGE_FILES = 200  # a package directory run with `python -m`: its first .py files, sorted
MAX_MANIFEST_BYTES = 1024 * 1024
NODE_SUFFIXES = ("", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", "/index.js")
DIRECTORY = "directory"
PYTHON_PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "uv.lock")
CUT_MARK = "…"  # the name under which a folder's cut listing is recorded


def inspect_launch(spec: ServerSpec, workspace: Path, environ: Mapping[str, str]) -> LaunchFacts | None:
    """The facts of a repository's stdio launch; None for the user's own servers and HTTP."""
    if not isinstance(spec, StdioServerSpec) or not needs_launch_approval(spec):
        return None
    cwd = launch_cwd(spec, workspace, workspace)  # a repository's server never gets a private dir
    found = _Found(workspace)
    if "/" in spec.command:
        found.add(cwd / spec.command)
    program = find_program(spec.command, search_path(spec, environ), cwd)
    if program is not None:
        found.add(Path(program))
    plan = plan_command(launch_argv(spec, workspace))
    for entry in plan.entries:
        _RESOLVERS[entry.kind](found, cwd, entry.name)
    return LaunchFacts(program, tuple(sorted(found.files.items())), plan.unpinned)


def search_path(spec: StdioServerSpec, environ: Mapping[str, str]) -> str:
    """The PATH the server itself gets: its own `env` PATH, else the user's (else the default)."""
    own = dict(spec.env).get("PATH")
    if own is None:
        return environ.get("PATH", os.defpath)
    with contextlib.suppress(ServerStartError):  # a missing variable fails the start anyway
        return expand_references(own, environ, server=spec.name, key="PATH")
    return own


def find_program(command: str, path: str, cwd: Path) -> str | None:
    """Where `command` resolves, as execvpe would find it: a path with `/` from the cwd, else the
    first executable file on PATH (an empty or relative entry counts from the server's cwd)."""
    candidates = [cwd / command] if "/" in command else [cwd / (d or ".") / command for d in path.split(":")]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    return None


class _Found:
    """Workspace files by workspace-relative path → sha256, MISSING, or where a link leads out."""

    def __init__(self, workspace: Path) -> None:
        self.root = Path(os.path.realpath(workspace))
        self.files: dict[str, str] = {}

    def relative(self, path: Path) -> str | None:
        """The path inside the workspace (its directory resolved, the name itself not), or None."""
        located = Path(os.path.realpath(path.parent)) / path.name
        with contextlib.suppress(ValueError):
            return located.relative_to(self.root).as_posix()
        return None

    def add(self, path: Path) -> None:
        name = self.relative(path)
        if name is not None and name not in self.files:
            self.files[name] = self.digest(path)

    def add_listing(self, folder: Path, listing: Listing, what: str) -> None:
        """Each listed file; where a bound cut the listing, one entry that says so. The walk
        followed no link to a folder, so only `folder` itself needs resolving (a link among the
        files, and a file the listing reached through a link, is resolved on its own)."""
        base = Path(os.path.realpath(folder))
        if not base.is_relative_to(self.root):
            return
        for path in listing.files:
            located = base / path.relative_to(folder)
            name = located.relative_to(self.root).as_posix()
            if name not in self.files:
                through_link = path in listing.linked or path.is_symlink()
                self.files[name] = self.digest(path) if through_link else file_digest(located)
        if listing.cut:
            where = self.relative(folder / CUT_MARK) or str(folder / CUT_MARK)
            self.files[where] = f"{CUT_NOTE}: the first {len(listing.files)} {what} files"

    def add_missing(self, path: Path) -> None:
        name = self.relative(path)
        if name is not None:
            self.files.setdefault(name, MISSING)

    def digest(self, path: Path) -> str:
        target = Path(os.path.realpath(path))
        if not target.is_relative_to(self.root):
            return f"outside the workspace: {target}" if os.path.lexists(path) else MISSING
        return file_digest(target)


def file_digest(path: Path) -> str:
    """sha256 of a regular file's content; MISSING, or what else it is."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return MISSING
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if stat.S_ISDIR(info.st_mode):
            return DIRECTORY
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        if info.st_size > MAX_FILE_BYTES:
            return f"too large to hash: {info.st_size} bytes, modified {info.st_mtime_ns}"
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _script(found: _Found, cwd: Path, name: str) -> None:
    path = cwd / name
    if path.is_dir():  # `python dir/` runs dir/__main__.py with the directory on sys.path
        _python_tree(found, path)
    else:
        found.add(path)


def _python_script(found: _Found, cwd: Path, name: str) -> None:
    """The script, and what it can import from its folder: Python puts the folder of the script
    (its real path, links followed) first on `sys.path`, before the standard library."""
    _script(found, cwd, name)
    path = Path(os.path.realpath(cwd / name))
    _importable(found, path if path.is_dir() else path.parent)


def _python_folder(found: _Found, cwd: Path, name: str) -> None:
    """A folder first on `sys.path` (the cwd for `python -c`): what can be imported from it."""
    _importable(found, cwd / name)


def _python_project(found: _Found, cwd: Path, name: str) -> None:
    """A project `uv run` installs (editable) or `uvx --from PATH` builds: its build files and
    what can be imported from it (`src/` too)."""
    project = cwd / name
    for file in PYTHON_PROJECT_FILES:
        found.add(project / file)
    _importable(found, project)
    _importable(found, project / "src")


def _importable(found: _Found, folder: Path) -> None:
    if found.relative(folder / "x") is not None:  # a folder outside the workspace is the user's
        found.add_listing(folder, python_importable(folder), "Python")


def _node_script(found: _Found, cwd: Path, name: str) -> None:
    """Node's lookup for a path: as written, then with its extensions, then dir/index.js; and
    what the script can load beside it."""
    for suffix in NODE_SUFFIXES:
        candidate = Path(str(cwd / name) + suffix)
        if candidate.is_file():
            found.add(candidate)
            _node_neighbours(found, Path(os.path.realpath(candidate)).parent)
            return
    found.add_missing(cwd / name)


def _node_neighbours(found: _Found, folder: Path) -> None:
    """The script files of the script's folder (relative imports), and the packages of every
    `node_modules` node looks in, from that folder up to the workspace's root."""
    if found.relative(folder / "x") is None:
        return
    found.add_listing(folder, node_loadable(folder), "script")
    directory = folder
    while found.relative(directory / "x") is not None:
        modules = directory / NODE_MODULES
        if modules.is_dir():
            found.add_listing(modules, node_packages(modules), "package")
        if directory.parent == directory:
            break
        directory = directory.parent


def _python_module(found: _Found, cwd: Path, name: str) -> None:
    """`python -m a.b` looks in the cwd first: `a.py`, or the package directory `a/`; and the cwd
    is first on `sys.path` for everything it imports."""
    top = name.split(".", 1)[0]
    found.add(cwd / f"{top}.py")
    package = cwd / top
    if package.is_dir():
        _python_tree(found, package)
    else:
        found.add_missing(package)
    _importable(found, cwd)


def _python_tree(found: _Found, directory: Path) -> None:
    found.files.setdefault(found.relative(directory) or str(directory), DIRECTORY)
    scripts = sorted(p for p in directory.rglob("*.py") if "__pycache__" not in p.parts)
    for path in scripts[:MAX_PACKAGE_FILES]:
        found.add(path)


def _near(found: _Found, cwd: Path, relative: str) -> Path | None:
    """`relative` in the cwd or the nearest parent that has it, without leaving the workspace."""
    directory = cwd
    while found.relative(directory / "x") is not None:
        if os.path.lexists(directory / relative):
            return directory / relative
        if directory.parent == directory:
            break
        directory = directory.parent
    return None


def _bin(found: _Found, cwd: Path, name: str) -> None:
    """The `node_modules/.bin/<name>` a package runner would run (its link followed for the hash)."""
    path = _near(found, cwd, f"node_modules/.bin/{name}")
    if path is None:
        found.add_missing(cwd / "node_modules" / ".bin" / name)
    else:
        found.add(path)


def _package(found: _Found, cwd: Path, name: str) -> None:
    """A package in the workspace's node_modules: its package.json, its bins and its main file."""
    manifest = _near(found, cwd, f"node_modules/{name}/package.json")
    if manifest is None:
        found.add_missing(cwd / "node_modules" / name / "package.json")
        return
    found.add(manifest)
    for target in package_entry_points(manifest):
        _node_script(found, manifest.parent, target)


def package_entry_points(manifest: Path) -> list[str]:
    """`bin` (a string or a map) and `main` of a package.json, as paths relative to the package."""
    try:
        with manifest.open("rb") as handle:
            doc = json.loads(handle.read(MAX_MANIFEST_BYTES))
    except (OSError, ValueError):
        return []
    if not isinstance(doc, dict):
        return []
    bins = doc.get("bin")
    targets = list(bins.values()) if isinstance(bins, dict) else [bins]
    targets.append(doc.get("main") or "index.js")
    return [t for t in targets if isinstance(t, str) and t]


def _node_module(found: _Found, cwd: Path, name: str) -> None:
    """`--require pkg/sub` loads from the package `pkg` (`@scope/pkg` when scoped)."""
    parts = name.split("/")
    _package(found, cwd, "/".join(parts[:2] if name.startswith("@") else parts[:1]))


def _file(found: _Found, cwd: Path, name: str) -> None:
    found.add(cwd / name)


_RESOLVERS: dict[str, Callable[[_Found, Path, str], None]] = {
    "script": _script,
    "python_script": _python_script,
    "python_folder": _python_folder,
    "python_project": _python_project,
    "node_script": _node_script,
    "python_module": _python_module,
    "node_module": _node_module,
    "bin": _bin,
    "package": _package,
    "file": _file,
}
