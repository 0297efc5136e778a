"""levelcode's modules read from their source, for the layer and purity tests: each module's name,
every import in it (at any depth), and whether it carries the pure marker. Reads files only;
never imports a module of levelcode, so a planted change in memory is judged as a real one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "levelcode"
PURE_MARKER = "PURE"  # a module-level `PURE = True`: the module takes and returns plain data


@dataclass(frozen=True)
class ModuleSource:
    where: str  # the path shown in a report: levelcode/core/outcome.py
    module: str  # levelcode.core.outcome
    package: str  # what its relative imports are resolved against
    text: str

    def changed(self, extra: str) -> ModuleSource:
        """The same module with `extra` added inside a function body (where lazy imports live)."""
        return ModuleSource(
            self.where, self.module, self.package, f"{self.text}\n\ndef _probe() -> None:\n    {extra}\n"
        )


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_of(path: Path) -> ModuleSource:
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    return ModuleSource(
        str(path.relative_to(PACKAGE.parent)), module, package, path.read_text(encoding="utf-8")
    )


def package_sources() -> list[ModuleSource]:
    return list(_read_package())


@cache
def _read_package() -> tuple[ModuleSource, ...]:
    return tuple(source_of(path) for path in sorted(PACKAGE.rglob("*.py")))


@cache
def parsed(text: str) -> ast.Module:
    """A module's tree, parsed once however many checks read it (trees are not changed)."""
    return ast.parse(text)


def source_at(relative: str) -> ModuleSource:
    """`core/outcome.py` → that module's source."""
    return source_of(PACKAGE / relative)


def replaced(sources: Iterable[ModuleSource], changed: ModuleSource) -> list[ModuleSource]:
    return [changed if source.module == changed.module else source for source in sources]


def imported_modules(source: str, package: str) -> Iterator[tuple[int, str]]:
    """(line, module) for every import in `source`, at any depth; relative ones resolved against
    `package` (the package the module lives in). `from levelcode.x import y` names `levelcode.x.y`
    when y is a module of levelcode, else `levelcode.x`; outside levelcode it names the package."""
    for node in ast.walk(parsed(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}" if is_module(f"{base}.{alias.name}") else base


@cache
def is_module(dotted: str) -> bool:
    relative = Path(*dotted.split("."))
    root = PACKAGE.parent
    return (root / relative).with_suffix(".py").exists() or (root / relative / "__init__.py").exists()


@cache
def is_package(dotted: str) -> bool:
    return (PACKAGE.parent / Path(*dotted.split(".")) / "__init__.py").exists()


def marker_of(tree: ast.Module) -> object:
    """The value of the module-level `PURE = …`, or None when the module has no marker (a `PURE`
    set inside a function or a class does not count)."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == PURE_MARKER for target in node.targets
        ):
            return node.value.value if isinstance(node.value, ast.Constant) else ast.unparse(node.value)
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and node.target.id == PURE_MARKER
        ):
            return node.value.value if isinstance(node.value, ast.Constant) else None
    return None


def pure_modules(sources: Iterable[ModuleSource]) -> frozenset[str]:
    """The modules that say `PURE = True` at their top level."""
    return frozenset(source.module for source in sources if marker_of(parsed(source.text)) is True)
