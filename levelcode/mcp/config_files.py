"""The thin edge that reads configuration files and hands the parsed documents to config.py.

Reads only; never writes (the `mcp` commands write through settings_store.py). A missing, empty or
`null` file means nothing is configured; a file that cannot be read or parsed is a listed problem.
"""

from __future__ import annotations

import json
from pathlib import Path

from levelcode import paths
from levelcode.errors import ConfigProblem
from levelcode.mcp.config import (
    McpConfig,
    TierConfig,
    check_project_settings,
    merge_tiers,
    parse_user_settings,
    parse_workspace_file,
)

WORKSPACE_MCP_FILES = (Path(".levelcode") / "mcp.json", Path(".mcp.json"))
PROJECT_SETTINGS_FILE = Path(".levelcode") / "settings.json"
MAX_CONFIG_BYTES = 4 * 1024 * 1024


def read_json_file(path: Path) -> tuple[object, ConfigProblem | None]:
    """The parsed document (None when missing or blank), or a problem naming the file."""
    try:
        if path.exists() and not path.is_file():  # a FIFO or device would block or never end
            return None, ConfigProblem(str(path), "(file)", "not a regular file; ignored")
        if path.exists() and path.stat().st_size > MAX_CONFIG_BYTES:
            return None, ConfigProblem(
                str(path), "(file)", f"larger than {MAX_CONFIG_BYTES:,} bytes; ignored"
            )
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as exc:
        return None, ConfigProblem(str(path), "(file)", f"cannot be read: {exc}")
    if not text.strip():
        return None, None
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, ConfigProblem(
            str(path), "(file)", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        )
    except RecursionError:
        return None, ConfigProblem(str(path), "(file)", "not valid JSON: nested too deeply")


def load_user_tier(settings_path: Path | None = None) -> TierConfig:
    path = settings_path or paths.user_settings_path()
    doc, problem = read_json_file(path)
    if problem is not None:
        return TierConfig(problems=(problem,))
    return parse_user_settings(doc, file=str(path))


def load_workspace_tier(workspace: Path) -> list[TierConfig]:
    tiers: list[TierConfig] = []
    for relative in WORKSPACE_MCP_FILES:
        path = workspace / relative
        doc, problem = read_json_file(path)
        tiers.append(
            TierConfig(problems=(problem,)) if problem else parse_workspace_file(doc, file=str(path))
        )
    return tiers


def load_project_settings(workspace: Path) -> tuple[dict[str, object], list[ConfigProblem]]:
    path = workspace / PROJECT_SETTINGS_FILE
    doc, problem = read_json_file(path)
    if problem is not None:
        return {}, [problem]
    return check_project_settings(doc, file=str(path))


def load_mcp_config(workspace: Path, settings_path: Path | None = None) -> McpConfig:
    """Both tiers for one workspace, merged: user servers win name collisions."""
    _, project_problems = load_project_settings(workspace)
    return merge_tiers(load_user_tier(settings_path), load_workspace_tier(workspace), project_problems)
