"""pyproject.toml says what levelcode uses: every third-party package levelcode/ imports (at any
depth, lazy imports included) is a declared runtime dependency, and every declared runtime
dependency is imported by levelcode/. Load-bearing direction: a package that arrives only through
another one (httpx2 came with anthropic) fails here, and so does a runtime dependency nothing
imports (the MCP SDK is the tests' reference: the dev group). The second corpus: the real tree
passes, and the probes below plant one of each."""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import re
import sys
import tomllib
from collections.abc import Collection, Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "levelcode"


def imported_packages(sources: Iterable[str]) -> set[str]:
    """The top-level names of every absolute import that is neither the standard library's nor ours."""
    found = set()
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
    return {name for name in found if name not in sys.stdlib_module_names and name != "levelcode"}


def declared_distributions(pyproject: str) -> set[str]:
    requirements = tomllib.loads(pyproject)["project"]["dependencies"]
    return {_normal(re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0]) for requirement in requirements}


def _normal(distribution: str) -> str:
    return re.sub(r"[-_.]+", "-", distribution).lower()


@functools.cache
def _distributions() -> dict[str, list[str]]:
    return dict(importlib.metadata.packages_distributions())


def distribution_of(module: str) -> set[str]:
    return {_normal(d) for d in _distributions().get(module, [])}


def undeclared(imported: Collection[str], declared: Collection[str]) -> list[str]:
    return sorted(name for name in imported if not distribution_of(name) & set(declared))


def unused(declared: Collection[str], imported: Collection[str]) -> list[str]:
    used = {distribution for name in imported for distribution in distribution_of(name)}
    return sorted(set(declared) - used)


def _tree() -> tuple[set[str], set[str]]:
    sources = (path.read_text(encoding="utf-8") for path in PACKAGE.rglob("*.py"))
    return imported_packages(sources), declared_distributions((ROOT / "pyproject.toml").read_text())


def test_every_imported_package_is_declared() -> None:
    imported, declared = _tree()
    assert undeclared(imported, declared) == []


def test_every_declared_runtime_dependency_is_imported() -> None:
    imported, declared = _tree()
    assert unused(declared, imported) == []


@pytest.mark.parametrize(
    ("code", "drop", "undeclared_names", "unused_names"),
    [
        ("import hypothesis", None, ["hypothesis"], []),  # a dev package used at run time
        ("from mcp.client.session import ClientSession", None, ["mcp"], []),
        ("", "rich", [], ["rich"]),  # a dependency nothing imports any more
        ("import json\nfrom . import sibling", None, [], []),  # the stdlib and our own are not counted
    ],
)
def test_a_planted_mismatch_is_caught(
    code: str, drop: str | None, undeclared_names: list[str], unused_names: list[str]
) -> None:
    imported, declared = _tree()
    planted = imported_packages([code]) | (imported - {drop} if drop else imported)
    assert undeclared(planted, declared) == undeclared_names
    assert unused(declared, planted) == unused_names
