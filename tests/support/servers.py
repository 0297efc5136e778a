"""Where the test servers are: the fault-injection script, the task server and the pinned reference
servers. (The first two also run in memory: tests/support/memory_servers.py.)"""

from __future__ import annotations

import sys
from pathlib import Path

from levelcode.mcp.config.specs import Provenance, StdioServerSpec
from tests.support.missing import missing, program

ROOT = Path(__file__).resolve().parents[2]
FAULT_SERVER = ROOT / "tests" / "servers" / "fault_server.py"
TASK_SERVER = ROOT / "tests" / "servers" / "task_server.py"
NODE_BIN = ROOT / "node_modules" / ".bin"
USER = Provenance("user", "/test/settings.json")


def fault_spec(*flags: str, pid_file: Path, name: str = "fault", **overrides: object) -> StdioServerSpec:
    return StdioServerSpec(
        name=name,
        command=sys.executable,
        args=(str(FAULT_SERVER), *flags),
        env=(("FAULT_PID_FILE", str(pid_file)),),
        provenance=USER,
        **overrides,  # type: ignore[arg-type]
    )


def fault_args_once(marker: Path) -> tuple[str, ...]:
    """The arguments (for `sys.executable`) of the fault server once `marker` exists; before that
    it exits at start, saying "no database yet" (as a server whose database or token is missing)."""
    code = (
        "import os, runpy, sys\n"
        f"if not os.path.exists({str(marker)!r}): sys.exit('no database yet')\n"
        f"sys.argv = [{str(FAULT_SERVER)!r}]\n"
        f"runpy.run_path({str(FAULT_SERVER)!r}, run_name='__main__')\n"
    )
    return ("-c", code)


NPM_CI = "run `npm ci` in the checkout (scripts/test does it)"


def node_server(binary: str) -> str:
    """A pinned npm reference server; the test skips without `npm ci` (fails where all is required)."""
    path = NODE_BIN / binary
    if not path.exists():
        missing(f"node_modules/.bin/{binary}", NPM_CI)
    return str(path)


def npx_installed(binary: str) -> tuple[str, ...]:
    """The argv that runs a pinned reference server through `npx` from this checkout's node_modules,
    never from the network; the test skips without `npm ci` or npx (fails where all is required)."""
    node_server(binary)
    npx = program("npx", "install Node.js 20+ with npm")
    return (npx, "--prefix", str(ROOT), "--no-install", binary)


LEGACY_SDK_VENV = ROOT / ".venv-legacy-sdk"


def legacy_sdk_bin(name: str) -> str:
    """A server from the old-SDK environment (tests/servers/legacy_python_sdk, built by scripts/test)."""
    path = LEGACY_SDK_VENV / "bin" / name
    if not path.exists():
        missing(f"{LEGACY_SDK_VENV.name}/bin/{name}", f"run scripts/test (it builds {LEGACY_SDK_VENV.name})")
    return str(path)


def venv_bin(name: str) -> str:
    path = Path(sys.executable).parent / name
    if not path.exists():
        raise RuntimeError(f"{path} is missing: run `uv sync`")
    return str(path)
