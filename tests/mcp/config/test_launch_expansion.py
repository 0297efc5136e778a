"""`${VAR}` in a server's command, args and url, filled in when the configuration is loaded.
Load-bearing direction: a value that looks like a secret — by its variable's name, the option
it is given to, or its own shape — is never put into the spec (so never onto a card, into a view
or the fingerprint): it stays `${NAME}`, filled in only at spawn; env and header values always
stay references; a repository's server never gets LevelCode's provider key filled in; an unset
variable without a default keeps its server from loading and says the file, key and variable.
The second corpus: what runs (the command, a path, a port, a host) is shown as it will run."""

from __future__ import annotations

import pytest

from levelcode.core.errors import ConfigProblem
from levelcode.mcp.config.environment import provider_keys_withheld
from levelcode.mcp.config.launch_expansion import Place, launch_expander, shows_value
from levelcode.mcp.config.specs import HttpServerSpec, ServerSpec, StdioServerSpec
from levelcode.mcp.config.tiers import parse_user_settings, parse_workspace_file

ENVIRON = {
    "HOME": "/home/me",
    "PORT": "8080",
    "MCP_HOST": "mcp.example.com",
    "PY": "/usr/bin/python3",
    "GITHUB_TOKEN": "ghp_abcdef123456",
    "PLAIN": "just-a-word",
    "GH": "ghp_zyxwv987654",
    "DATABASE_URL": "postgres://app:hunter2@db.example.com/app",
    "ANTHROPIC_API_KEY": "sk-ant-provider",
    "SAME_AS_KEY": "sk-ant-provider",
    "TEMPLATE": "${GITHUB_TOKEN}",
}

SHOWN = {
    "the command": (Place("command", "command"), "PY", "/usr/bin/python3"),
    "a path": (Place("args", "arg 1"), "HOME", "/home/me"),
    "a port after an option": (Place("args", "arg 2", "--port"), "PORT", "8080"),
    "a host": (Place("url", "url"), "MCP_HOST", "mcp.example.com"),
    "a word": (Place("args", "arg 1"), "PLAIN", "just-a-word"),
}
BY_REFERENCE = {
    "a token's name": (Place("args", "arg 1"), "GITHUB_TOKEN", "whatever"),
    "camel case": (Place("args", "arg 1"), "apiKey", "whatever"),
    "after --api-key": (Place("args", "arg 2", "--api-key"), "PLAIN", "just-a-word"),
    "after --token=": (Place("args", "arg 1", "--token"), "PLAIN", "just-a-word"),
    "after --header": (Place("args", "arg 2", "--header"), "PLAIN", "just-a-word"),
    "a query key": (Place("url", "url", "api_key"), "PLAIN", "just-a-word"),
    "a token's shape": (Place("args", "arg 1"), "GH", "ghp_zyxwv987654"),
    "a URL with a password": (Place("args", "arg 1"), "DATABASE_URL", ENVIRON["DATABASE_URL"]),
    "a JWT": (Place("url", "url"), "X", "eyJhbGciOiJIUzI1NiJ9.e30.x"),
    "env, always": (Place("env", "env HOME"), "HOME", "/home/me"),
    "a header, always": (Place("header", "header X-Port"), "PORT", "8080"),
}


@pytest.mark.parametrize(("place", "variable", "value"), SHOWN.values(), ids=SHOWN.keys())
def test_what_runs_is_shown_as_it_will_run(place: Place, variable: str, value: str) -> None:
    assert shows_value(place, variable, value)


@pytest.mark.parametrize(("place", "variable", "value"), BY_REFERENCE.values(), ids=BY_REFERENCE.keys())
def test_what_looks_like_a_secret_is_shown_by_its_reference(place: Place, variable: str, value: str) -> None:
    assert not shows_value(place, variable, value)


def _user(entry: dict[str, object], environ: dict[str, str] = ENVIRON) -> tuple[ServerSpec | None, list[str]]:
    tier = parse_user_settings(
        {"mcpServers": {"s": entry}}, file="/u/settings.json", expand=launch_expander(environ)
    )
    return (tier.servers[0] if tier.servers else None), [str(p) for p in tier.problems]


def test_command_args_and_url_are_filled_in_and_secrets_left_as_references() -> None:
    spec, problems = _user(
        {
            "command": "${PY}",
            "args": [
                *("${HOME}/srv.py", "--port", "${PORT}", "--token", "${PLAIN}", "${GITHUB_TOKEN}"),
                *("${DATABASE_URL}", "${TEMPLATE}", "${MISSING:-fallback}", "${workspaceFolder}"),
            ],
            "env": {"HOME_AGAIN": "${HOME}"},
        }
    )
    assert problems == []
    assert isinstance(spec, StdioServerSpec)
    assert spec.command == "/usr/bin/python3"
    assert spec.args == (
        "/home/me/srv.py",
        "--port",
        "8080",
        "--token",
        "${PLAIN}",
        "${GITHUB_TOKEN}",
        "${DATABASE_URL}",
        "${TEMPLATE}",  # its value is a reference itself: left to the one expansion at spawn
        "fallback",
        "${workspaceFolder}",
    )
    assert spec.env == (("HOME_AGAIN", "${HOME}"),)
    remote, _ = _user(
        {"url": "https://${MCP_HOST}:${PORT}/mcp?api_key=${PLAIN}", "headers": {"A": "${PORT}"}}
    )
    assert isinstance(remote, HttpServerSpec)
    assert remote.url == "https://mcp.example.com:8080/mcp?api_key=${PLAIN}"
    assert remote.headers == (("A", "${PORT}"),)


def test_an_unset_variable_keeps_only_its_server_from_loading_and_says_where() -> None:
    doc = {
        "mcpServers": {
            "broken": {"command": "npx", "args": ["-y", "pkg", "${NOT_SET}"]},
            "remote": {"url": "${NO_URL}/mcp"},
            "fine": {"command": "${PY}"},
        }
    }
    tier = parse_workspace_file(doc, file="/repo/.mcp.json", expand=launch_expander(ENVIRON))
    assert [spec.name for spec in tier.servers] == ["fine"]
    assert tier.problems == (
        ConfigProblem(
            "/repo/.mcp.json",
            "mcpServers.broken.args",
            "arg 3 refers to ${NOT_SET}, which is not set in your environment (set it, or write "
            "${NOT_SET:-default}); this server is not loaded",
            not_loaded=True,
        ),
        ConfigProblem(
            "/repo/.mcp.json",
            "mcpServers.remote.url",
            "url refers to ${NO_URL}, which is not set in your environment (set it, or write "
            "${NO_URL:-default}); this server is not loaded",
            not_loaded=True,
        ),
    )


def test_a_url_that_is_no_web_address_once_filled_in_is_a_problem() -> None:
    spec, problems = _user({"url": "${HOME}/mcp"})
    assert spec is None
    assert problems == [
        "/u/settings.json: mcpServers.s.url: '/home/me/mcp' (filled in) is not an http:// or https:// URL; "
        "this server is not loaded"
    ]


def test_a_repository_server_never_gets_a_provider_key_filled_in() -> None:
    withheld = provider_keys_withheld(ENVIRON)
    doc = {"s": {"command": "x", "args": ["${ANTHROPIC_API_KEY}", "${SAME_AS_KEY}", "${HOME}"]}}
    tier = parse_workspace_file(doc, file="/repo/.mcp.json", expand=launch_expander(ENVIRON, withheld))
    assert isinstance(tier.servers[0], StdioServerSpec)
    assert tier.servers[0].args == ("${ANTHROPIC_API_KEY}", "${SAME_AS_KEY}", "/home/me")


def test_without_an_expander_everything_stays_as_written() -> None:
    """`mcp add` validates and stores what was typed; nothing is filled in there."""
    tier = parse_user_settings({"mcpServers": {"s": {"command": "${PY}"}}}, file="/u/settings.json")
    assert isinstance(tier.servers[0], StdioServerSpec)
    assert tier.servers[0].command == "${PY}"
