"""The built-in tools LevelCode offers the model, and the session teardown they need.

Names are plain snake_case and never contain "__", which is reserved for MCP's `server__tool`.
"""

from __future__ import annotations

from levelcode.tools.background import (
    READ_BACKGROUND_OUTPUT,
    START_BACKGROUND_COMMAND,
    STOP_BACKGROUND_COMMAND,
    close_background_jobs,
)
from levelcode.tools.base import BuiltinTool, ToolContext
from levelcode.tools.file_edit import EDIT_FILE, WRITE_FILE
from levelcode.tools.file_read import LIST_DIRECTORY, READ_FILE
from levelcode.tools.file_search import FIND_FILES, SEARCH_FILES
from levelcode.tools.plan import UPDATE_PLAN
from levelcode.tools.run_command import RUN_COMMAND


def builtin_tools() -> list[BuiltinTool]:
    return [
        READ_FILE,
        LIST_DIRECTORY,
        FIND_FILES,
        SEARCH_FILES,
        WRITE_FILE,
        EDIT_FILE,
        RUN_COMMAND,
        START_BACKGROUND_COMMAND,
        READ_BACKGROUND_OUTPUT,
        STOP_BACKGROUND_COMMAND,
        UPDATE_PLAN,
    ]


async def close_tool_context(ctx: ToolContext) -> None:
    """End a session's tools (on /new and on exit): stop every background job's whole process
    group, then forget the session's state."""
    await close_background_jobs(ctx)
    ctx.state.clear()
