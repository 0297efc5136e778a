"""User settings writes. Load-bearing direction: a settings.json LevelCode cannot parse is never
overwritten — `allow_mcp_tool` raises ConfigError naming the file and the bytes stay exactly as the
user left them. The second corpus: a readable file (or none) gets the allow entry and keeps every
other key, value, order and its file mode; a new file is created owner-only."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.core.errors import ConfigError
from levelcode.mcp.calls.allow_store import allow_mcp_tool
from levelcode.platform.settings_store import update_user_settings

NOT_PARSABLE = {
    "trailing comma": b'{"mcpToolPolicy": {"fs__read_file": "allow"},}',
    "comment": b'// my settings\n{"model": "m"}',
    "truncated": b'{"model": "m", "mcpServers": {',
    "garbage bytes": b"\xff\xfe\x00\x80",
    "byte order mark": b'\xef\xbb\xbf{"model": "m"}',
    "a list": b'[{"mcpToolPolicy": {}}]',
    "an empty list": b"[]",
    "a string": b'"settings"',
    "a number": b"1",
}

EMPTY = {"missing": None, "blank": b"", "whitespace": b"\n  \n", "null": b"null", "empty object": b"{}"}


@pytest.mark.parametrize("content", NOT_PARSABLE.values(), ids=NOT_PARSABLE.keys())
def test_an_unparsable_settings_file_is_never_overwritten(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(content)
    with pytest.raises(ConfigError) as raised:
        allow_mcp_tool("fs__read_file", path)
    assert raised.value.origin == str(path)
    assert str(path) in str(raised.value)
    assert "does not overwrite" in str(raised.value)
    assert path.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json", "settings.json.lock"]


def test_a_directory_in_place_of_settings_is_reported_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.mkdir()
    (path / "inside").write_text("kept", encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        allow_mcp_tool("fs__read_file", path)
    assert raised.value.origin == str(path)
    assert (path / "inside").read_text(encoding="utf-8") == "kept"


def test_a_failing_change_is_not_dressed_up_as_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"model": "m"}', encoding="utf-8")

    def change(doc: dict[str, Any]) -> None:
        raise KeyError("boom")

    with pytest.raises(KeyError):
        update_user_settings(change, path)
    assert path.read_text(encoding="utf-8") == '{"model": "m"}'


@pytest.mark.parametrize("content", EMPTY.values(), ids=EMPTY.keys())
def test_no_settings_yet_gets_just_the_allow_entry(tmp_path: Path, content: bytes | None) -> None:
    path = tmp_path / "settings.json"
    if content is not None:
        path.write_bytes(content)
    assert allow_mcp_tool("fs__read_file", path) == path
    assert json.loads(path.read_text(encoding="utf-8")) == {"mcpToolPolicy": {"fs__read_file": "allow"}}


def test_a_new_settings_file_is_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    allow_mcp_tool("fs__read_file", path)
    assert path.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o644])
def test_an_existing_file_keeps_its_mode(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "settings.json"
    path.write_text("{}", encoding="utf-8")
    path.chmod(mode)
    allow_mcp_tool("fs__read_file", path)
    assert path.stat().st_mode & 0o777 == mode


def test_allowing_a_tool_keeps_everything_else_in_order(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    before: dict[str, Any] = {
        "provider": "anthropic",
        "model": "claude-x",
        "mcpServers": {"fs": {"command": "npx", "args": ["-y", "server", "/home/me"], "env": {"A": "${B}"}}},
        "mcpToolPolicy": {"fs__write_file": "ask", "gh__*": "allow"},
        "autopilot": False,
        "notes": "héllo ✓",
        "unknownKey": [1, 2.5, None, {"nested": True}],
    }
    path.write_text(json.dumps(before, indent=4), encoding="utf-8")
    allow_mcp_tool("fs__read_file", path)
    after = json.loads(path.read_text(encoding="utf-8"))
    expected_policy = {**before["mcpToolPolicy"], "fs__read_file": "allow"}
    assert after == {**before, "mcpToolPolicy": expected_policy}
    assert list(after) == list(before)
    assert list(after["mcpToolPolicy"]) == list(expected_policy)


def test_allowing_a_tool_the_user_set_to_ask_turns_it_to_allow(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"mcpToolPolicy": {"fs__read_file": "ask"}}', encoding="utf-8")
    allow_mcp_tool("fs__read_file", path)
    allow_mcp_tool("fs__read_file", path)  # twice is the same as once
    assert json.loads(path.read_text(encoding="utf-8")) == {"mcpToolPolicy": {"fs__read_file": "allow"}}


def test_the_default_target_is_the_user_settings_file(isolated_home: Path) -> None:
    written = allow_mcp_tool("fs__read_file")
    assert written == isolated_home / "settings.json"
    assert json.loads(written.read_text(encoding="utf-8")) == {"mcpToolPolicy": {"fs__read_file": "allow"}}


JSON_LEAF = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
JSON_VALUE = st.recursive(
    JSON_LEAF,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@given(
    doc=st.dictionaries(st.text(max_size=12), JSON_VALUE, max_size=6),
    policy=st.none() | st.dictionaries(st.text(max_size=12), st.sampled_from(["allow", "ask"]), max_size=4),
    name=st.text(min_size=1, max_size=30),
)
def test_allow_mcp_tool_only_ever_adds_one_entry(
    doc: dict[str, Any], policy: dict[str, str] | None, name: str
) -> None:
    doc.pop("mcpToolPolicy", None)
    if policy is not None:
        doc["mcpToolPolicy"] = policy
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "settings.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        allow_mcp_tool(name, path)
        after = json.loads(path.read_text(encoding="utf-8"))
    expected_policy = {**(policy or {}), name: "allow"}
    assert after == {**doc, "mcpToolPolicy": expected_policy}
