"""A server's environment. Load-bearing direction: nothing outside the allowlist (API keys, cloud
credentials) reaches a server unless its own config names it, and a repository's server never
gets LevelCode's own provider keys even when it names them (by name, or through a copy). The
second corpus: what a program needs (PATH, HOME, locale) and what the config asks for, with ${VAR}
references, do reach it — the user's own server may name a provider key."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.core.errors import ServerStartError
from levelcode.mcp.config.environment import (
    ALLOWED_VARIABLES,
    PROVIDER_KEY_VARIABLES,
    provider_keys_withheld,
    server_environment,
    withheld_references,
)

PARENT = {
    "PATH": "/usr/bin",
    "HOME": "/home/me",
    "LANG": "C.UTF-8",
    "LC_ALL": "C",
    "TMPDIR": "/tmp",
    "ANTHROPIC_API_KEY": "sk-ant-secret",
    "OPENAI_API_KEY": "sk-secret",
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "GITHUB_TOKEN": "ghp_secret",
    "LD_PRELOAD": "/tmp/evil.so",
    "NODE_OPTIONS": "--require /tmp/evil.js",
    "PYTHONPATH": "/tmp/evil",
}


def test_secrets_and_loader_variables_are_not_inherited() -> None:
    env = server_environment((), PARENT, server="s")
    assert env == {"PATH": "/usr/bin", "HOME": "/home/me", "LANG": "C.UTF-8", "LC_ALL": "C", "TMPDIR": "/tmp"}


def test_own_env_is_added_and_references_are_expanded() -> None:
    own = (("TOKEN", "${GITHUB_TOKEN}"), ("MODE", "${MODE:-fast}"), ("MIX", "a-${HOME}-b"), ("LIT", "$HOME"))
    env = server_environment(own, PARENT, server="s")
    assert env["TOKEN"] == "ghp_secret"
    assert env["MODE"] == "fast"
    assert env["MIX"] == "a-/home/me-b"
    assert env["LIT"] == "$HOME"
    assert "ANTHROPIC_API_KEY" not in env


def test_a_missing_variable_is_a_clear_error_naming_it_and_the_server() -> None:
    with pytest.raises(ServerStartError, match=r"env TOKEN refers to \$\{NOPE\}, which is not set") as raised:
        server_environment((("TOKEN", "${NOPE}"),), PARENT, server="github")
    assert raised.value.server == "github"


def test_default_applies_when_the_variable_is_empty() -> None:
    assert server_environment((("X", "${EMPTY:-d}"),), {"EMPTY": ""}, server="s")["X"] == "d"
    assert server_environment((("X", "${EMPTY}"),), {"EMPTY": ""}, server="s")["X"] == ""


@given(st.dictionaries(st.text(min_size=1, max_size=12), st.text(max_size=5), max_size=10))
def test_property_only_allowlisted_names_are_inherited(parent: dict[str, str]) -> None:
    env = server_environment((), parent, server="s")
    assert all(k in ALLOWED_VARIABLES or k.startswith("LC_") for k in env)


# --- a repository's server and LevelCode's own provider keys ---------------------------------------

KEYS = provider_keys_withheld(
    PARENT | {"MY_COPY": "sk-secret", "SETTINGS_COPY": "from-settings"}, ["from-settings"]
)
WITH_COPIES = PARENT | {"MY_COPY": "sk-secret", "SETTINGS_COPY": "from-settings"}


@pytest.mark.parametrize("name", [*PROVIDER_KEY_VARIABLES, "MY_COPY", "SETTINGS_COPY"])
def test_a_provider_key_is_treated_as_unset_for_a_repository_server(name: str) -> None:
    env = server_environment((("K", f"${{{name}:-none}}"),), WITH_COPIES, server="s", withheld=KEYS)
    assert env["K"] == "none"
    with pytest.raises(
        ServerStartError, match=rf"env K refers to \$\{{{name}\}}, which holds LevelCode's own"
    ):
        server_environment((("K", f"${{{name}}}"),), WITH_COPIES, server="s", withheld=KEYS)


def test_other_secrets_still_reach_a_repository_server_that_asks() -> None:
    env = server_environment((("T", "${GITHUB_TOKEN}"),), WITH_COPIES, server="s", withheld=KEYS)
    assert env["T"] == "ghp_secret"
    assert withheld_references(
        ["${GITHUB_TOKEN}", "${MY_COPY}", "a${OPENAI_API_KEY}b"], WITH_COPIES, KEYS
    ) == [
        "MY_COPY",
        "OPENAI_API_KEY",
    ]


def test_the_users_own_server_may_still_ask_for_a_provider_key() -> None:
    assert server_environment((("K", "${OPENAI_API_KEY}"),), PARENT, server="s")["K"] == "sk-secret"
