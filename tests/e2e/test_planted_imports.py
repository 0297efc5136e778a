"""Files planted where an approved, unconfined repository server's interpreter imports from, end to
end through `levelcode mcp list`. Load-bearing direction: after the approval, a file planted
beside the server's script (Python's `json.py` or `json/` package, found before the standard
library because the script's folder is first on `sys.path`; the cwd for `python -m`), a changed
sibling module, a forged `__pycache__` entry stamped like its source, a changed relative `import`
of a node script, or a package planted in the `node_modules` next to it, never runs: the marker
the planted code would write never appears, and the server asks again ("… appeared since you
approved — needs approval"). The second corpus: the same server starts while nothing changed,
and each plant really runs when the server is started without LevelCode (the positive control).
"""

from __future__ import annotations

import importlib.util
import json
import marshal
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from levelcode.mcp.config.tiers import parse_workspace_file
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.trust_store import TrustStore
from tests.support.cli import run_cli
from tests.support.servers import FAULT_SERVER, node_server

PYTHON_PLANT = "import pathlib\npathlib.Path({marker!r}).write_text('pwned')\n"
NODE_PLANT = "import {{ writeFileSync }} from 'node:fs';\nwriteFileSync({marker}, 'pwned');\n"
WRAPPER = "import helper, runpy\nrunpy.run_path({fault!r}, run_name='__main__')\n"


@dataclass(frozen=True)
class Case:
    entry: dict[str, Any]
    setup: Callable[[Path], None]  # the server as approved
    plant: Callable[[Path, Path], None]  # (workspace, marker): what is planted after the approval
    change: str | None  # what the state names; None: it starts, and the plant is simply not read


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def fault_copy(folder: str) -> Callable[[Path], None]:
    return lambda workspace: write(workspace / folder / "server.py", FAULT_SERVER.read_text())


def python_plant(relative: str) -> Callable[[Path, Path], None]:
    return lambda workspace, marker: write(workspace / relative, PYTHON_PLANT.format(marker=str(marker)))


def with_helper(workspace: Path) -> None:
    write(workspace / "helper.py", "VALUE = 1\n")
    write(workspace / "server.py", WRAPPER.format(fault=str(FAULT_SERVER)))


def forged_bytecode(workspace: Path, marker: Path) -> None:
    """`__pycache__/helper.*.pyc` compiled from other code, stamped with helper.py's mtime and
    size, so that Python takes it for helper.py's own bytecode."""
    source = workspace / "helper.py"
    info = source.stat()
    code = compile(PYTHON_PLANT.format(marker=str(marker)) + "VALUE = 1\n", str(source), "exec")
    header = importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little")
    header += (int(info.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little") + info.st_size.to_bytes(4, "little")
    cached = Path(importlib.util.cache_from_source(str(source)))
    cached.parent.mkdir(exist_ok=True)
    cached.write_bytes(header + marshal.dumps(code))


def memory_server() -> str:
    """The npm memory server's script (asked when a case runs: without `npm ci` only those skip)."""
    return os.path.realpath(node_server("mcp-server-memory"))


def node_server_importing(first: str) -> Callable[[Path], None]:
    def setup(workspace: Path) -> None:
        write(workspace / "lib.mjs", "export const value = 1;\n")
        write(workspace / "server.mjs", f"{first}\nawait import({json.dumps(memory_server())});\n")

    return setup


def node_plant(relative: str, manifest: bool = False) -> Callable[[Path, Path], None]:
    def plant(workspace: Path, marker: Path) -> None:
        write(workspace / relative, NODE_PLANT.format(marker=json.dumps(str(marker))))
        if manifest:
            manifest_text = {"name": "optional-helper", "type": "module", "main": Path(relative).name}
            write((workspace / relative).parent / "package.json", json.dumps(manifest_text))

    return plant


PY = sys.executable
CASES = {
    "json.py beside the script": Case(
        {"command": PY, "args": ["server.py"]}, fault_copy("."), python_plant("json.py"), "json.py appeared"
    ),
    "a json package beside the script": Case(
        {"command": PY, "args": ["server.py"]},
        fault_copy("."),
        python_plant("json/__init__.py"),
        "json/__init__.py appeared",
    ),
    "json.py beside a script in a folder": Case(
        {"command": PY, "args": ["tools/server.py"]},
        fault_copy("tools"),
        python_plant("tools/json.py"),
        "tools/json.py appeared",
    ),
    "json.py in the cwd of python -m": Case(
        {"command": PY, "args": ["-m", "server"]},
        fault_copy("."),
        python_plant("json.py"),
        "json.py appeared",
    ),
    "a changed sibling module": Case(
        {"command": PY, "args": ["server.py"]}, with_helper, python_plant("helper.py"), "helper.py changed"
    ),
    "forged bytecode of a sibling module": Case(
        {"command": PY, "args": ["server.py"]}, with_helper, forged_bytecode, None
    ),
    "a changed relative import of a node script": Case(
        {"command": "node", "args": ["server.mjs"]},
        node_server_importing("import './lib.mjs';"),
        node_plant("lib.mjs"),
        "lib.mjs changed",
    ),
    "a package planted in node_modules beside a node script": Case(
        {"command": "node", "args": ["server.mjs"]},
        node_server_importing("try { await import('optional-helper'); } catch {}"),
        node_plant("node_modules/optional-helper/index.js", manifest=True),
        "node_modules/optional-helper/package.json appeared",
    ),
}


def approve(home: Path, workspace: Path, entry: dict[str, Any]) -> None:
    """The user approved the server unconfined (as `[y]` on its card records it)."""
    config = workspace / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"helper": entry}}))
    spec = parse_workspace_file(json.loads(config.read_text()), file=str(config)).servers[0]
    TrustStore(home / "state" / "trust.json").approve(workspace, spec, launch_text(spec))


def helper_state(home: Path, workspace: Path) -> dict[str, Any]:
    done = run_cli(["-C", str(workspace), "mcp", "list", "--json"], home, timeout=120)
    assert done.returncode == 0, done.stderr
    servers = {s["name"]: s for s in json.loads(done.stdout)["servers"]}
    state: dict[str, Any] = servers["helper"]
    return state


def run_without_levelcode(workspace: Path, entry: dict[str, Any]) -> None:
    """The positive control: the server started by hand, its stdin closed at once."""
    command = [entry["command"], *entry["args"]]
    subprocess.run(
        command, cwd=workspace, stdin=subprocess.DEVNULL, capture_output=True, timeout=60, check=False
    )


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_a_plant_beside_an_approved_unconfined_server_never_runs(
    isolated_home: Path, tmp_path: Path, case: Case
) -> None:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    marker = tmp_path / "marker"
    case.setup(workspace)
    approve(isolated_home, workspace, case.entry)
    before = helper_state(isolated_home, workspace)
    assert before["state"] == "running", before  # approved and unchanged: it starts
    case.plant(workspace, marker)
    after = helper_state(isolated_home, workspace)
    assert not marker.exists(), f"the planted code ran: {after['state']}"
    if case.change is None:
        assert after["state"] == "running", after
    else:
        assert after["state"] == f"{case.change} since you approved — needs approval", after
    run_without_levelcode(workspace, case.entry)
    assert marker.exists(), "the plant would not have run anyway: the test proves nothing"
