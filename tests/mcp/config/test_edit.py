"""Building and validating `mcp add` entries (LevelCode's forms and Claude Code's `--transport`),
and editing the `mcpServers` of your settings or a workspace's .mcp.json. Load-bearing
direction: an entry is refused whenever config loading would report anything about it (the check
is the loader's own `parse_server_entry`, never a copy), and nothing typed is ever expanded or
handed to a shell (`${VAR}`, `$(id)`, backticks, `;`, globs and `~` stay literal text). The
second corpus: good entries pass exactly as written, and every edit keeps every other key of the
settings document, in its order, without touching the input."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from levelcode.core.errors import ConfigError, ConfigProblem
from levelcode.mcp.config.edit import (
    AddRequest,
    EntryRefused,
    ServerExists,
    ServerNotFound,
    ServersDoc,
    build_entry,
    command_words,
    entry_as_written,
    parse_assignments,
    problems_for,
    split_add_arguments,
    validate_entry,
    with_disabled,
    with_server,
    without_server,
)
from levelcode.mcp.config.tiers import parse_user_settings

FILE = "/home/me/.config/levelcode/settings.json"


def no_paths(_word: str) -> bool:
    return False


# --- validation: the loader's verdict, nothing looser --------------------------------------------

REFUSED: dict[str, object] = {
    "not an object": ["npx"],
    "no command or url": {"args": ["x"]},
    "empty command": {"command": ""},
    "blank command": {"command": "   "},
    "command not a string": {"command": ["npx", "-y"]},
    "args not a list": {"command": "x", "args": "-y pkg"},
    "args with a number": {"command": "x", "args": ["a", 1]},
    "env value not a string": {"command": "x", "env": {"PORT": 8080}},
    "env a list": {"command": "x", "env": ["A=b"]},
    "empty cwd": {"command": "x", "cwd": ""},
    "both command and url": {"command": "x", "url": "https://a.example"},
    "url not http": {"url": "ftp://a.example"},
    "url without scheme": {"url": "a.example/mcp"},
    "headers value not a string": {"url": "https://a.example", "headers": {"X": 1}},
    "unknown type": {"type": "websocket", "url": "https://a.example"},
    "unknown key": {"command": "x", "comand": "y"},
    "http key on stdio": {"command": "x", "headers": {"A": "b"}},
    "negative timeout": {"command": "x", "timeout": -1},
    "zero startup timeout": {"command": "x", "startupTimeout": 0},
    "timeout as text": {"command": "x", "timeout": "60"},
    "timeout true": {"command": "x", "timeout": True},
    "disabled as text": {"command": "x", "disabled": "yes"},
}

ACCEPTED: dict[str, dict[str, object]] = {
    "bare command": {"command": "npx"},
    "stdio in full": {
        "type": "stdio",
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/My Documents"],
        "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}", "MODE": "${MODE:-fast}", "EMPTY": ""},
        "cwd": "~/src",
        "timeout": 60,
        "startupTimeout": 2.5,
        "disabled": True,
    },
    "http": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
    "streamable http": {"type": "streamable-http", "url": "http://localhost:8000/mcp"},
}


@pytest.mark.parametrize("entry", REFUSED.values(), ids=REFUSED.keys())
def test_an_entry_the_loader_would_complain_about_is_refused(entry: object) -> None:
    with pytest.raises(EntryRefused) as refused:
        validate_entry("fs", entry, file=FILE)
    assert refused.value.problems
    assert all(p.key.startswith("mcpServers.fs") for p in refused.value.problems)
    assert "'fs' was not added" in str(refused.value)


@pytest.mark.parametrize("entry", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_a_clean_entry_passes_as_written(entry: dict[str, object]) -> None:
    spec = validate_entry("fs", entry, file=FILE)
    assert (spec.name, spec.provenance.tier, spec.provenance.file) == ("fs", "user", FILE)
    if "env" in entry:
        assert dict(getattr(spec, "env", ())) == entry["env"]


@pytest.mark.parametrize("kind", [[], ["stdio"], {}])
def test_an_unhashable_type_is_refused_not_a_crash(kind: object) -> None:
    # config.py's own check raises TypeError for these; `mcp add` must refuse them cleanly.
    with pytest.raises(EntryRefused, match=r"mcpServers\.fs\.type"):
        validate_entry("fs", {"type": kind, "command": "x"}, file=FILE)


@pytest.mark.parametrize("name", ["", "  "])
def test_an_empty_name_is_refused(name: str) -> None:
    with pytest.raises(EntryRefused):
        validate_entry(name, {"command": "x"}, file=FILE)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=True) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2),
    max_leaves=4,
)
ENTRY_KEYS = st.sampled_from(
    [
        "type",
        "command",
        "args",
        "env",
        "cwd",
        "url",
        "headers",
        "timeout",
        "startupTimeout",
        "disabled",
        "sandbox",
        "x",
    ]
)
STRING_VALUES = st.sampled_from(["", "x", "stdio", "http", "https://a.example", "ftp://b"])


@given(
    st.dictionaries(
        ENTRY_KEYS, JSON_VALUES | STRING_VALUES | st.lists(st.text(max_size=3), max_size=2), max_size=5
    )
)
def test_property_refused_exactly_when_loading_would_report_something(entry: dict[str, Any]) -> None:
    assume(not isinstance(entry.get("type"), list | dict))  # the loader raises on these (see below)
    loaded = parse_user_settings({"mcpServers": {"s": entry}}, file=FILE)
    clean = len(loaded.servers) == 1 and not loaded.problems
    if clean:
        assert validate_entry("s", entry, file=FILE) == loaded.servers[0]
    else:
        with pytest.raises(EntryRefused) as refused:
            validate_entry("s", entry, file=FILE)
        assert list(refused.value.problems) == list(loaded.problems)


# --- building from command-line input: literal, never expanded ----------------------------------

LITERAL_LINES = {
    "dollar paren": ("srv $(id)", ["srv", "$(id)"]),
    "backticks": ("srv `id`", ["srv", "`id`"]),
    "semicolon": ("srv a; echo ran", ["srv", "a;", "echo", "ran"]),
    "glob": ("srv *.py ? ~", ["srv", "*.py", "?", "~"]),
    "variable": ("srv ${HOME} $HOME", ["srv", "${HOME}", "$HOME"]),
    "pipe": ("srv | cat", ["srv", "|", "cat"]),
    "quoted path": ("npx -y pkg '/Users/me/My Documents'", ["npx", "-y", "pkg", "/Users/me/My Documents"]),
}


@pytest.mark.parametrize(("line", "words"), LITERAL_LINES.values(), ids=LITERAL_LINES.keys())
def test_a_command_typed_as_one_string_is_split_without_a_shell(line: str, words: list[str]) -> None:
    entry = build_entry(AddRequest(command=(line,)), is_existing_path=no_paths)
    args = entry.get("args", [])
    assert isinstance(args, list)
    assert [entry["command"], *args] == words


@pytest.mark.parametrize(
    "words",
    [
        ("srv", "$(id)", "`id`", "a;b", "*.py", "${HOME}", "~/x"),
        ("srv", "two words", "x"),
        ("/opt/My Server/bin/srv",),
        ("no-space",),
    ],
)
def test_several_words_and_a_single_plain_word_are_taken_as_they_are(words: tuple[str, ...]) -> None:
    assert command_words(words, is_existing_path=lambda word: word.startswith("/opt/")) == list(words)


def test_one_string_that_names_an_existing_file_is_a_program_not_a_line() -> None:
    program = "/Applications/My Server/run"
    assert command_words((program,), is_existing_path=lambda word: word == program) == [program]
    assert command_words((program,), is_existing_path=no_paths) == ["/Applications/My", "Server/run"]


def test_an_unsplittable_line_is_an_error() -> None:
    with pytest.raises(ConfigError, match="check the quotes"):
        build_entry(AddRequest(command=("npx 'unclosed",)), is_existing_path=no_paths)


ENV_VALUES = [
    "${GITHUB_TOKEN}",
    "${HOME}",
    "$HOME",
    "${MODE:-fast}",
    "$(id)",
    "`id`",
    "a;b",
    "*",
    "~/x",
    "",
    "b=c",
    " x ",
]


def test_env_values_are_stored_exactly_as_written() -> None:
    env = tuple(f"K{i}={value}" for i, value in enumerate(ENV_VALUES))
    entry = build_entry(AddRequest(command=("srv",), env=env), is_existing_path=no_paths)
    assert entry["env"] == {f"K{i}": value for i, value in enumerate(ENV_VALUES)}


@pytest.mark.parametrize("item", ["NOEQUALS", "=value", "", "${X}"])
def test_a_malformed_env_entry_is_refused(item: str) -> None:
    with pytest.raises(ConfigError, match="expected KEY=VALUE"):
        build_entry(AddRequest(command=("srv",), env=(item,)), is_existing_path=no_paths)


def test_an_env_key_given_twice_is_refused() -> None:
    with pytest.raises(ConfigError, match="given twice"):
        parse_assignments(["A=1", "A=2"], separator="=", option="-e", form="KEY=VALUE")


def test_headers_split_at_the_first_colon() -> None:
    request = AddRequest(url="https://a.example/mcp", headers=("Authorization: Bearer ${T}", "X-A:b:c"))
    entry = build_entry(request, is_existing_path=no_paths)
    assert entry == {
        "url": "https://a.example/mcp",
        "headers": {"Authorization": "Bearer ${T}", "X-A": "b:c"},
    }
    with pytest.raises(ConfigError, match="Key: Value"):
        build_entry(AddRequest(url="https://a.example", headers=("NoColon",)), is_existing_path=no_paths)


def test_timeouts_are_numbers_and_the_loader_judges_them() -> None:
    request = AddRequest(command=("srv",), timeout="60", startup_timeout="2.5")
    assert build_entry(request, is_existing_path=no_paths) == {
        "command": "srv",
        "timeout": 60,
        "startupTimeout": 2.5,
    }
    with pytest.raises(ConfigError, match="number of seconds"):
        build_entry(AddRequest(command=("srv",), timeout="soon"), is_existing_path=no_paths)
    for bad in ("0", "-5", "nan", "inf"):
        entry = build_entry(AddRequest(command=("srv",), timeout=bad), is_existing_path=no_paths)
        with pytest.raises(EntryRefused):
            validate_entry("s", entry, file=FILE)


@pytest.mark.parametrize(
    "request_",
    [
        AddRequest(),
        AddRequest(command=("srv",), url="https://a.example"),
        AddRequest(command=("srv",), json_text="{}"),
        AddRequest(json_text='{"command": "x"}', env=("A=b",)),
        AddRequest(json_text='{"command": "x"}', timeout="5"),
        AddRequest(url="https://a.example", env=("A=b",)),
        AddRequest(url="https://a.example", cwd="/tmp"),
        AddRequest(command=("srv",), headers=("A: b",)),
        AddRequest(command=("srv",), client_id="abc"),
        AddRequest(command=("srv",), transport="http"),
        AddRequest(command=("srv",), transport="sse"),
        AddRequest(url="https://a.example", transport="stdio"),
        AddRequest(json_text='{"command": "x"}', transport="stdio"),
        AddRequest(url="https://a.example", callback_port="99999"),
        AddRequest(command=("https://a.example/mcp",)),
    ],
)
def test_mixed_or_missing_forms_are_refused(request_: AddRequest) -> None:
    with pytest.raises(ConfigError):
        build_entry(request_, is_existing_path=no_paths)


TRANSPORTS = {
    "http": (
        AddRequest(url="https://a.example/mcp", transport="http"),
        {"url": "https://a.example/mcp"},
    ),
    "sse": (
        AddRequest(url="https://a.example/sse", transport="sse", headers=("X-Key: ${K}",)),
        {"type": "sse", "url": "https://a.example/sse", "headers": {"X-Key": "${K}"}},
    ),
    "stdio": (
        AddRequest(command=("npx", "-y", "pkg"), transport="stdio"),
        {"command": "npx", "args": ["-y", "pkg"]},
    ),
    "oauth": (
        AddRequest(url="https://a.example/mcp", transport="http", client_id="abc", callback_port="8976"),
        {"url": "https://a.example/mcp", "oauth": {"clientId": "abc", "callbackPort": 8976}},
    ),
}


@pytest.mark.parametrize(("request_", "entry"), TRANSPORTS.values(), ids=TRANSPORTS.keys())
def test_each_transport_builds_the_entry_config_loading_reads(request_: AddRequest, entry: object) -> None:
    built = build_entry(request_, is_existing_path=no_paths)
    assert built == entry
    spec = validate_entry("s", built, file=FILE)
    assert spec.transport == ("stdio" if request_.transport == "stdio" else "http")


def test_a_url_where_a_command_goes_is_refused_with_the_right_form() -> None:
    with pytest.raises(ConfigError) as refused:
        build_entry(AddRequest(command=("https://a.example/mcp",)), is_existing_path=no_paths, name="api")
    assert "levelcode mcp add --transport http api https://a.example/mcp" in str(refused.value)
    with pytest.raises(ConfigError) as refused:
        build_entry(AddRequest(command=("npx",), transport="http"), is_existing_path=no_paths, name="api")
    assert "--transport http takes the server's URL, not a command" in str(refused.value)


@pytest.mark.parametrize("text", ["{not json", "[1]", '"npx"', "null", "1"])
def test_json_that_is_not_one_object_is_refused(text: str) -> None:
    with pytest.raises(ConfigError, match="--json"):
        build_entry(AddRequest(json_text=text), is_existing_path=no_paths)


def test_json_is_taken_as_written() -> None:
    text = '{"command": "srv", "args": ["$(id)"], "env": {"T": "${T}"}}'
    assert build_entry(AddRequest(json_text=text), is_existing_path=no_paths) == json.loads(text)


@pytest.mark.parametrize(
    ("rest", "split"),
    [
        (["npx", "-y", "pkg"], ([], ["npx", "-y", "pkg"])),
        (["npx", "--", "--flag"], ([], ["npx", "--", "--flag"])),
        (["-e", "A=b", "--", "npx", "--", "-x"], (["-e", "A=b"], ["npx", "--", "-x"])),
        (["--url", "https://a.example"], (["--url", "https://a.example"], [])),
        ([], ([], [])),
    ],
)
def test_what_follows_the_name_splits_into_options_and_command(
    rest: list[str], split: tuple[list[str], list[str]]
) -> None:
    assert split_add_arguments(rest) == split


# --- editing the settings document: everything else kept ---------------------------------------

OTHER_KEYS = st.dictionaries(
    st.text(max_size=8).filter(lambda key: key != "mcpServers"), JSON_VALUES, max_size=6
)


@given(OTHER_KEYS, st.booleans())
def test_property_edits_keep_every_other_key_in_order(other: dict[str, Any], servers_first: bool) -> None:
    doc: dict[str, Any] = {"mcpServers": {"keep": {"command": "k", "x": [1]}}}
    doc = {**doc, **other} if servers_first else {**other, **doc}
    before = json.dumps(doc)
    disabled = with_disabled(doc, "keep", True)
    assert disabled is not None
    edited = [
        with_server(doc, "new", {"command": "n"}, replace=False),
        with_server(doc, "keep", {"command": "k2"}, replace=True),
        without_server(doc, "keep"),
        disabled,
    ]
    assert json.dumps(doc) == before  # the input is never changed
    for new in edited:
        assert list(new) == list(doc)
        assert {k: v for k, v in new.items() if k != "mcpServers"} == other
    assert edited[0]["mcpServers"] == {"keep": {"command": "k", "x": [1]}, "new": {"command": "n"}}
    assert edited[1]["mcpServers"] == {"keep": {"command": "k2"}}
    assert edited[2]["mcpServers"] == {}
    assert edited[3]["mcpServers"] == {"keep": {"command": "k", "x": [1], "disabled": True}}


def test_servers_go_last_when_the_document_had_none() -> None:
    for doc in ({"model": "m"}, {"model": "m", "mcpServers": None}):
        new = with_server(doc, "fs", {"command": "x"}, replace=False)
        assert new == {"model": "m", "mcpServers": {"fs": {"command": "x"}}}


def test_an_existing_name_needs_replace_and_a_missing_one_is_reported() -> None:
    doc = {"mcpServers": {"fs": {"command": "x"}}}
    with pytest.raises(ServerExists):
        with_server(doc, "fs", {"command": "y"}, replace=False)
    with pytest.raises(ServerNotFound):
        without_server(doc, "nope")
    with pytest.raises(ServerNotFound):
        with_disabled(doc, "nope", True)


def test_a_repository_file_keeps_its_shape() -> None:
    """A workspace's .mcp.json may be the bare map of servers: an edit keeps it bare, as loading
    reads it; the wrapped shape, and an empty file, get `mcpServers`."""
    project = ServersDoc("workspace", "/repo/.mcp.json")
    bare = {"a": {"command": "x"}}
    assert with_server(bare, "b", {"command": "y"}, replace=False, of=project) == {
        "a": {"command": "x"},
        "b": {"command": "y"},
    }
    assert without_server(bare, "a", of=project) == {}
    wrapped = {"mcpServers": {"a": {"command": "x"}}, "other": 1}
    assert with_server(wrapped, "b", {"command": "y"}, replace=False, of=project) == {
        "mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}},
        "other": 1,
    }
    assert with_server({}, "b", {"command": "y"}, replace=False, of=project) == {
        "mcpServers": {"b": {"command": "y"}}
    }
    with pytest.raises(ServerNotFound, match=r"in /repo/\.mcp\.json"):
        without_server(bare, "nope", of=project)
    # the user's settings are never a bare map: a key there is a setting, not a server
    assert with_server({"model": "m"}, "b", {"command": "y"}, replace=False) == {
        "model": "m",
        "mcpServers": {"b": {"command": "y"}},
    }


def test_a_repository_entry_is_checked_by_the_repository_tiers_rules() -> None:
    entry = {"command": "x", "alwaysLoad": True}  # only your own settings may set it
    validate_entry("s", entry, file=FILE)
    with pytest.raises(EntryRefused, match="alwaysLoad"):
        validate_entry("s", entry, file="/repo/.mcp.json", tier="workspace")


@pytest.mark.parametrize("servers", [[], "x", 1])
def test_servers_that_are_not_an_object_are_left_for_the_user_to_fix(servers: object) -> None:
    with pytest.raises(ConfigError, match="fix it first"):
        with_server({"mcpServers": servers}, "fs", {"command": "x"}, replace=True)


def test_disable_and_enable_change_only_the_disabled_key() -> None:
    doc = {"mcpServers": {"fs": {"command": "x", "disabled": True, "env": {"A": "b"}}}}
    assert with_disabled(doc, "fs", True) is None
    enabled = with_disabled(doc, "fs", False)
    assert enabled == {"mcpServers": {"fs": {"command": "x", "env": {"A": "b"}}}}
    assert with_disabled(enabled, "fs", False) is None
    odd = {"mcpServers": {"fs": {"command": "x", "disabled": "yes"}}}
    assert with_disabled(odd, "fs", False) == {"mcpServers": {"fs": {"command": "x"}}}
    with pytest.raises(ConfigError, match="not an object"):
        with_disabled({"mcpServers": {"fs": "npx"}}, "fs", True)


def test_the_entry_as_written_is_found_in_either_file_shape() -> None:
    entry = {"command": "x", "extra": 1}
    assert entry_as_written({"mcpServers": {"fs": entry}}, "fs", "user") == entry
    assert entry_as_written({"mcpServers": {"fs": entry}}, "fs", "workspace") == entry
    assert entry_as_written({"fs": entry}, "fs", "workspace") == entry
    assert entry_as_written({"fs": entry}, "fs", "user") is None
    assert entry_as_written(None, "fs", "workspace") is None


def test_problems_for_one_server() -> None:
    problems = [
        ConfigProblem("f", "mcpServers.fs.timeout", "bad"),
        ConfigProblem("f", "mcpServers.fs", "bad"),
        ConfigProblem("f", "mcpServers.fs2", "other server"),
        ConfigProblem("g", "fs.env", "bare map"),
        ConfigProblem("g", "(file)", "whole file"),
    ]
    assert [p.message for p in problems_for(problems, "fs")] == ["bad", "bad", "bare map"]
