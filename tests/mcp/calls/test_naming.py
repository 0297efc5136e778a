"""Tool names. Load-bearing direction: no output may ever be illegal for a provider, collide with
another tool in the list, or equal a built-in — whatever a hostile server names itself or its
tools. The second corpus: clean names must come through unchanged, so users see what they expect."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.calls.naming import (
    MAX_NAME_LENGTH,
    TOOL_NAME_PATTERN,
    assign_tool_names,
    namespace_tool_name,
    split_tool_name,
    stable_digest,
)

BUILTINS = frozenset({"read_file", "write_file", "edit_file", "run_command", "list_directory"})

HOSTILE_PAIRS = [
    ("fs", "read/file"),
    ("fs", "read:file"),
    ("fs", "read file"),
    ("fs", "ファイル"),
    ("fs", "émoji🙂"),
    ("fs", ""),
    ("", "tool"),
    ("fs", "x" * 500),
    ("s" * 500, "tool"),
    ("fs", "y" * 70 + "A"),
    ("fs", "y" * 70 + "B"),
    ("my/server", "t"),
    ("my:server", "t"),
    ("my_server", "t"),
    ("a b", "c"),
    ("a", "b c"),
    ("a__b", "c"),
    ("a", "b__c"),
    ("git_", "status"),
    ("git", "status"),
    ("read", "file"),
    ("nul\x00in", "name"),
    ("tab\tserver", "new\nline"),
]


def _legal(name: str) -> bool:
    return TOOL_NAME_PATTERN.fullmatch(name) is not None and len(name) <= MAX_NAME_LENGTH


def test_hostile_corpus_gives_legal_unique_non_builtin_names() -> None:
    names = assign_tool_names(HOSTILE_PAIRS, BUILTINS)
    assert set(names) == set(HOSTILE_PAIRS)
    assert all(_legal(n) for n in names.values()), [n for n in names.values() if not _legal(n)]
    assert len(set(names.values())) == len(HOSTILE_PAIRS)
    assert not set(names.values()) & BUILTINS


def test_clean_names_come_through_unchanged() -> None:
    pairs = [("filesystem", "read_file"), ("github", "create_issue"), ("my-server", "do-it"), ("a_b", "c")]
    names = assign_tool_names(pairs, BUILTINS)
    assert names == {pair: f"{pair[0]}__{pair[1]}" for pair in pairs}


def test_servers_that_sanitize_alike_get_distinct_server_parts() -> None:
    names = assign_tool_names([("my/server", "t"), ("my:server", "t"), ("my_server", "t")])
    prefixes = {split_tool_name(n) for n in names.values()}
    assert len({p[0] for p in prefixes if p}) == 3
    assert names[("my_server", "t")] == "my_server__t"


def test_split_differently_pairs_do_not_collide_even_in_the_hash() -> None:
    assert stable_digest("a b", "c") != stable_digest("a", "b c")
    assert stable_digest("a\x00b", "c") != stable_digest("a", "b\x00c")
    assert stable_digest("a\\", "0b") != stable_digest("a", "\\0b")
    names = assign_tool_names([("a b", "c"), ("a", "b c")])
    assert names[("a b", "c")] != names[("a", "b c")]


def test_long_names_that_differ_only_at_the_end_stay_distinct() -> None:
    one, two = ("fs", "y" * 70 + "A"), ("fs", "y" * 70 + "B")
    names = assign_tool_names([one, two])
    assert names[one] != names[two]
    assert all(len(n) <= 64 for n in names.values())


def test_a_server_name_with_double_underscore_cannot_take_another_servers_prefix() -> None:
    names = assign_tool_names([("github", "t"), ("github__evil", "t"), ("github_", "t")])
    servers = {pair: split_tool_name(name) for pair, name in names.items()}
    assert servers[("github", "t")] == ("github", "t")
    assert servers[("github__evil", "t")] is not None
    assert servers[("github__evil", "t")][0] != "github"
    assert servers[("github_", "t")] is not None
    assert servers[("github_", "t")][0] != "github"


def test_a_name_that_equals_a_builtin_is_renamed() -> None:
    names = assign_tool_names([("read", "file")], reserved={"read__file"})
    assert names[("read", "file")] != "read__file"
    assert _legal(names[("read", "file")])


def test_names_do_not_depend_on_input_order() -> None:
    forward = assign_tool_names(HOSTILE_PAIRS, BUILTINS)
    backward = assign_tool_names(list(reversed(HOSTILE_PAIRS)), BUILTINS)
    assert forward == backward


def test_same_input_gives_the_same_names_in_another_process() -> None:
    script = (
        "import json, sys; from levelcode.mcp.calls.naming import assign_tool_names;"
        "pairs = [tuple(p) for p in json.load(sys.stdin)];"
        "print(json.dumps(sorted(assign_tool_names(pairs).values())))"
    )
    import json

    pairs = json.dumps(HOSTILE_PAIRS)
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            input=pairs,
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1
    assert json.loads(outputs.pop()) == sorted(assign_tool_names(HOSTILE_PAIRS).values())


@pytest.mark.parametrize(("server", "tool"), HOSTILE_PAIRS)
def test_single_name_is_legal(server: str, tool: str) -> None:
    assert _legal(namespace_tool_name(server, tool))


names_text = st.text(max_size=80) | st.sampled_from(["", "a", "read_file", "a__b", "_", "__", "x" * 200])


@given(st.lists(st.tuples(names_text, names_text), max_size=25), st.frozensets(names_text, max_size=5))
def test_property_names_legal_unique_and_never_reserved(
    pairs: list[tuple[str, str]], reserved: frozenset[str]
) -> None:
    names = assign_tool_names(pairs, reserved | BUILTINS)
    values = list(names.values())
    assert all(_legal(n) for n in values)
    assert len(set(values)) == len(values) == len(set(pairs))
    assert not set(values) & (reserved | BUILTINS)


@given(st.lists(st.tuples(names_text, names_text), min_size=1, max_size=15))
def test_property_each_server_owns_exactly_one_server_part(pairs: list[tuple[str, str]]) -> None:
    names = assign_tool_names(pairs)
    owner: dict[str, str] = {}
    for (server, _tool), name in names.items():
        parts = split_tool_name(name)
        assert parts is not None
        assert owner.setdefault(parts[0], server) == server


RENAMED = [
    # (pairs, the pair whose name had to change, the parts its digest covers)
    ([("fs", "bad name/with:chars")], ("fs", "bad name/with:chars"), ("fs", "bad name/with:chars")),
    ([("fs", "t" * 100)], ("fs", "t" * 100), ("fs", "t" * 100)),
    ([("fs", "a_b"), ("fs", "a b")], ("fs", "a b"), ("fs", "a b")),  # sanitizes to a clean name's
    ([("fs", "a b"), ("fs", "a:b")], ("fs", "a:b"), ("fs", "a:b")),  # both renamed, each its own
    ([("read", "file")], ("read", "file"), ("read", "file", "1")),  # `read__file` is a built-in here
]


@pytest.mark.parametrize(("pairs", "renamed", "parts"), RENAMED)
def test_a_renamed_tool_ends_in_its_stable_digest(
    pairs: list[tuple[str, str]], renamed: tuple[str, str], parts: tuple[str, ...]
) -> None:
    names = assign_tool_names(pairs, reserved={"read__file"})
    assert names[renamed].endswith("_" + stable_digest(*parts))
    assert TOOL_NAME_PATTERN.fullmatch(names[renamed])


def test_a_renamed_server_part_ends_in_its_stable_digest() -> None:
    name = namespace_tool_name("my server/v2", "read")
    assert name.split("__")[0].endswith("_" + stable_digest("my server/v2"))


@pytest.mark.parametrize("server", ["fs", "a", "s" * 24, "my_server-2"])
def test_the_exact_length_boundary_of_the_tool_part(server: str) -> None:
    """A tool that just fits beside `server__` keeps its name (64 characters); one character more
    is renamed, never a 65-character name (an HTTP 400 on every request)."""
    room = MAX_NAME_LENGTH - len(server) - len("__")
    fits, one_over = "t" * room, "t" * (room + 1)
    for names in (
        {fits: namespace_tool_name(server, fits), one_over: namespace_tool_name(server, one_over)},
        {tool: name for (_, tool), name in assign_tool_names([(server, fits), (server, one_over)]).items()},
    ):
        assert names[fits] == f"{server}__{fits}"
        assert len(names[fits]) == MAX_NAME_LENGTH
        assert len(names[one_over]) <= MAX_NAME_LENGTH
        assert _legal(names[one_over])
        assert names[one_over].endswith(stable_digest(server, one_over))
