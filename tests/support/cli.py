"""Running the installed `levelcode` command in tests, with an isolated home and settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

LEVELCODE = Path(sys.executable).parent / "levelcode"


def write_settings(home: Path, settings: Mapping[str, object]) -> Path:
    path = home / "settings.json"
    path.write_text(json.dumps(settings, indent=2), encoding="utf-8")
    return path


def cli_env(home: Path, **extra: str) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ["HOME"],
        "LEVELCODE_HOME": str(home),
        "LANG": "C.UTF-8",
        # never the developer's keyring or browser (see tests/conftest.py)
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "BROWSER": "true",
    }
    env.update(extra)
    return env


def run_cli(
    args: Sequence[str],
    home: Path,
    *,
    cwd: Path | None = None,
    timeout: float = 60,
    input_text: str | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`levelcode ARGS…` with the isolated home (`env`: variables beside it), no terminal."""
    return subprocess.run(
        [str(LEVELCODE), *args],
        capture_output=True,
        text=True,
        env=cli_env(home, **(env or {})),
        cwd=cwd,
        timeout=timeout,
        input=input_text,
        check=False,
    )


def start_cli(args: Sequence[str], home: Path, *, cwd: Path | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(LEVELCODE), *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env(home),
        cwd=cwd,
    )


KEY_VARIABLES = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}


def provider_flags(api: str, base_url: str, model: str) -> list[str]:
    """The flags that point `levelcode` at a fake provider server."""
    return ["--provider", api, "--base-url", base_url, "--model", model]


def provider_env(home: Path, api: str, **extra: str) -> dict[str, str]:
    """The isolated environment plus the key the fake server accepts."""
    return cli_env(home, **{KEY_VARIABLES[api]: "test-key"}, **extra)
