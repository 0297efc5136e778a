"""The built-in tool list: legal, unique names that can never look like an MCP `server__tool`,
well-formed schemas, and the approval rule each tool is wired to."""

from __future__ import annotations

import re
from pathlib import Path

from levelcode.tools.base import ToolContext
from levelcode.tools.command_approval import background_command_approval, run_command_approval
from levelcode.tools.file_edit import edit_file_approval, write_file_approval
from levelcode.tools.registry import builtin_tools

READ_ONLY = {
    "read_file",
    "list_directory",
    "find_files",
    "search_files",
    "read_background_output",
    "stop_background_command",
    "update_plan",
}


def test_names_are_legal_unique_and_never_namespaced() -> None:
    names = [tool.name for tool in builtin_tools()]
    assert len(names) == len(set(names))
    for name in names:
        assert re.fullmatch(r"[a-z_]+", name), name
        assert "__" not in name


def test_the_expected_tools_are_there() -> None:
    assert {tool.name for tool in builtin_tools()} == READ_ONLY | {
        "write_file",
        "edit_file",
        "run_command",
        "start_background_command",
    }


def test_schemas_are_objects_whose_required_keys_exist() -> None:
    for tool in builtin_tools():
        schema = tool.input_schema
        assert schema["type"] == "object"
        properties = schema["properties"]
        assert isinstance(properties, dict)
        required = schema.get("required", [])
        assert isinstance(required, list)
        assert set(required) <= set(properties), tool.name
        assert tool.description.strip()


def test_approval_rules_are_wired(tmp_path: Path) -> None:
    tools = {tool.name: tool for tool in builtin_tools()}
    assert tools["run_command"].approval is run_command_approval
    assert tools["start_background_command"].approval is background_command_approval
    assert tools["write_file"].approval is write_file_approval
    assert tools["edit_file"].approval is edit_file_approval
    ctx = ToolContext(workspace=tmp_path)
    for name in READ_ONLY:
        assert tools[name].approval(ctx, {"path": "x", "job_id": "bg1", "pattern": "x"}) is None


def test_the_name_list_matches_the_registry() -> None:
    from levelcode.tools.names import BUILTIN_TOOL_NAMES
    from levelcode.tools.registry import builtin_tools

    assert {tool.name for tool in builtin_tools()} == BUILTIN_TOOL_NAMES
