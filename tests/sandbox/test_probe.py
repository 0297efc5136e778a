"""Whether there is a sandbox here. Load-bearing direction: anything short of a real confined run
succeeding — no bwrap, bwrap refused by the kernel, another OS — means "no sandbox", with a reason
a person can act on. The second corpus: where bwrap works (this CI), the probe says so."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from levelcode.sandbox import probe
from levelcode.sandbox.probe import sandbox_support

PACKAGE = Path(probe.__file__).parent


@pytest.fixture(autouse=True)
def fresh_probe() -> Iterator[None]:
    sandbox_support.cache_clear()
    yield
    sandbox_support.cache_clear()


@pytest.mark.sandbox
def test_a_working_bwrap_is_a_sandbox() -> None:
    support = sandbox_support()
    assert support.available
    assert support.reason is None
    assert sandbox_support() is support  # probed once per process


def test_no_bwrap_on_path_means_no_sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    support = sandbox_support()
    assert not support.available
    assert support.reason is not None
    assert "bwrap was not found" in support.reason
    assert "apt-get install bubblewrap" in support.reason


def test_a_bwrap_the_kernel_refuses_means_no_sandbox(tmp_path: Path) -> None:
    refused = tmp_path / "bwrap"
    refused.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    refused.chmod(0o755)
    support = probe.probe(str(refused))
    assert not support.available
    assert support.reason is not None
    assert "setting up uid map: Permission denied" in support.reason
    assert "user namespaces" in support.reason


def test_another_os_means_no_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    support = sandbox_support()
    assert not support.available
    assert support.reason == "the sandbox needs Linux (this is darwin)"


def test_the_sandbox_package_imports_nothing_from_the_layers_above() -> None:
    """It sits beside the core, so the tools and MCP can both use it."""
    above = ("levelcode.agent", "levelcode.ui", "levelcode.cli", "levelcode.tools", "levelcode.mcp")
    found = []
    for module in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [a.name for a in node.names] if isinstance(node, ast.Import) else []
            found += [f"{module.name}: {n}" for n in names if n.startswith(above)]
    assert found == []
