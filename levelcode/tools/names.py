"""The built-in tools' names, without importing the tools: what `levelcode mcp list` needs to name
MCP tools exactly as the agent will, at a fraction of the start-up cost. A test keeps this list
equal to the registry's."""

BUILTIN_TOOL_NAMES = frozenset(
    {
        "read_file",
        "list_directory",
        "find_files",
        "search_files",
        "write_file",
        "edit_file",
        "run_command",
        "start_background_command",
        "read_background_output",
        "stop_background_command",
        "update_plan",
    }
)
