"""`levelcode.mcp.stdio` stays small and honest: every module opens with a docstring that says
what it owns and what it must never do (or that it is pure), none passes ~400 lines, and only
spawn.py starts a process. Load-bearing direction: a module that spawns, or says nothing of
its limits, fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

STDIO = Path(__file__).resolve().parents[3] / "levelcode" / "mcp" / "stdio"
MODULES = sorted(STDIO.glob("*.py"))
SPAWNING = ("Popen", "subprocess_exec", "subprocess_shell", "posix_spawn", "fork", "create_subprocess_exec")


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_each_module_says_what_it_owns_and_must_never_do(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree) or ""
    assert len(doc.splitlines()) >= 2, f"{path.name}: no docstring saying what it owns"
    assert "never" in doc.lower() or "pure" in doc.lower(), f"{path.name}: its docstring names no limit"
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 400


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_only_spawn_py_starts_a_server(path: Path) -> None:
    if path.name in ("spawn.py", "reaper.py"):  # the server's spawn; the watchdog's own sidecar
        return
    called = {
        node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
    }
    assert not called & set(SPAWNING), f"{path.name} starts a process: {called & set(SPAWNING)}"
