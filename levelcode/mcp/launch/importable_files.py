"""The files an interpreter can load from a folder it looks in first, which a repository's approval
must cover as it covers the script: a planted `json.py` beside `server.py` runs before the
standard library's (Python puts the script's folder first on `sys.path`), and a node script loads
its relative imports and the packages in the `node_modules` beside it.

- Python: in the folder, every module file (`.py`, `.pyc`, extension modules), and in every
  folder an import can name (a Python identifier: a package, or part of a namespace package),
  the same, down to `MAX_DEPTH`. `__pycache__` is left out — the server is started with its
  bytecode cache elsewhere (resolve.py), so a forged cache entry is never read — and so are
  virtual environments (`pyvenv.cfg`) and `node_modules`, which no import names.
- node (and deno, bun, tsx): the script files and `package.json` files of the script's folder
  tree, `node_modules` left out; and of `node_modules` itself, each package's `package.json`,
  `@scope/name` ones included (a planted package appears; a package's own files edited in place
  are not seen).

Reads directory listings only, never a file's content (inspection.py hashes what this
lists), never follows a link to a folder (the link itself is listed, recorded by where it points)
— but in `node_modules`, where packages and scopes are links as often as not (workspaces, pnpm):
there a `package.json` is listed through its link and marked `linked`, so that inspection.py
judges it by where it leads (and never reads one outside the workspace). Stops at `MAX_FILES`
files or `MAX_ENTRIES` listed entries, saying so (`Listing.cut`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILES = 1000  # files listed for one folder
MAX_ENTRIES = 20_000  # directory entries looked at for one folder
MAX_DEPTH = 8
PYTHON_SUFFIXES = (".py", ".pyc", ".pyw", ".so", ".pyd")
NODE_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx", ".json", ".node")
NODE_MODULES = "node_modules"
PYTHON_SKIPPED = frozenset({"__pycache__", NODE_MODULES})


@dataclass
class Listing:
    """The files found, sorted per folder; `cut` when a bound stopped the walk."""

    files: list[Path] = field(default_factory=list[Path])
    cut: bool = False
    entries: int = 0
    linked: set[Path] = field(default_factory=set[Path])  # reached through a link to a folder

    def full(self) -> bool:
        self.cut = self.cut or len(self.files) >= MAX_FILES or self.entries >= MAX_ENTRIES
        return self.cut


def python_importable(folder: Path) -> Listing:
    """What `import NAME` (and `import NAME.sub`) can load from `folder`."""
    listing = Listing()
    _walk(folder, listing, _python_file, _python_folder, depth=0)
    return listing


def node_loadable(folder: Path) -> Listing:
    """The script files a node script in `folder` can import by relative path."""
    listing = Listing()
    _walk(folder, listing, _node_file, _node_folder, depth=0)
    return listing


def node_packages(node_modules: Path) -> Listing:
    """Each package's `package.json` in a `node_modules` folder: `name/` and every `@scope/name/`.
    A scope that is a link is listed through it, as node resolves `@scope/name` through it; a
    package reached through a link goes in `linked`, to be judged by where it leads."""
    listing = Listing()
    for entry in _entries(node_modules, listing):
        if listing.full():
            break
        if entry.name.startswith("."):
            continue
        if entry.name.startswith("@") and entry.is_dir():  # a link to a folder too
            _scope(Path(entry.path), listing, linked=entry.is_symlink())
        else:
            _add_manifest(Path(entry.path), listing, linked=entry.is_symlink())
    return listing


def _scope(folder: Path, listing: Listing, *, linked: bool) -> None:
    for entry in _entries(folder, listing):
        if listing.full():
            return
        if not entry.name.startswith("."):
            _add_manifest(Path(entry.path), listing, linked=linked or entry.is_symlink())


def _add_manifest(folder: Path, listing: Listing, *, linked: bool) -> None:
    manifest = folder / "package.json"
    listing.files.append(manifest)
    if linked:
        listing.linked.add(manifest)


def _walk(
    folder: Path,
    listing: Listing,
    wanted: Callable[[str], bool],
    descend: Callable[[os.DirEntry[str]], bool],
    *,
    depth: int,
) -> None:
    for entry in _entries(folder, listing):
        if listing.full():
            return
        if entry.is_dir(follow_symlinks=False):
            if depth < MAX_DEPTH and descend(entry):
                _walk(Path(entry.path), listing, wanted, descend, depth=depth + 1)
        elif entry.is_symlink() and os.path.isdir(entry.path):
            listing.files.append(Path(entry.path))  # a link to a folder: recorded, not followed
        elif wanted(entry.name):
            listing.files.append(Path(entry.path))


def _entries(folder: Path, listing: Listing) -> Iterator[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
    except OSError:
        return
    listing.entries += len(entries)
    yield from entries


def _python_file(name: str) -> bool:
    return name.endswith(PYTHON_SUFFIXES)


def _python_folder(entry: os.DirEntry[str]) -> bool:
    if not entry.name.isidentifier() or entry.name in PYTHON_SKIPPED:
        return False
    return not os.path.exists(os.path.join(entry.path, "pyvenv.cfg"))


def _node_file(name: str) -> bool:
    return name.endswith(NODE_SUFFIXES)


def _node_folder(entry: os.DirEntry[str]) -> bool:
    return entry.name != NODE_MODULES and not entry.name.startswith(".")
