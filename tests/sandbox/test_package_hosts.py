"""Which hosts the user's package managers are configured to use. Load-bearing direction: only the
user's configuration counts — the config files read are the user's and the system's, never a
workspace's — and a registry the user configured replaces the default rather than adding to it,
so the list is what the user's own tools would reach, no wider. The second corpus: every place a
user configures a registry or an index (the environment, npmrc, uv.toml, pip.conf) is found."""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.policy.network_hosts import HostEntry, parse_host_entry
from levelcode.sandbox.package_hosts import config_files, npm_sources, python_sources

HOME = Path("/home/u")


def texts(entries: tuple[HostEntry, ...]) -> list[str]:
    return [e.text() for e in entries]


def test_npm_defaults_to_its_public_registry() -> None:
    sources = npm_sources({}, [])
    assert sources.configured == ()
    assert texts(sources.defaults) == ["registry.npmjs.org"]
    assert sources.environment == (("npm_config_registry", "https://registry.npmjs.org/"),)


def test_npm_takes_the_environment_first_in_any_case() -> None:
    for name in ("npm_config_registry", "NPM_CONFIG_REGISTRY"):
        sources = npm_sources({name: "http://127.0.0.1:4873/"}, ["registry=https://from.npmrc/"])
        assert texts(sources.configured) == ["127.0.0.1:4873"]
        assert sources.defaults == ()  # the default is replaced, not added to
        assert sources.environment == (("npm_config_registry", "http://127.0.0.1:4873/"),)


def test_npm_reads_the_first_npmrc_that_sets_it_and_every_scope() -> None:
    user = '; comment\n# comment\nregistry = "https://npm.corp.example/"\n@corp:registry=https://scoped.example/\n'
    user += "//npm.corp.example/:_authToken=${NPM_TOKEN}\n"
    sources = npm_sources({"NPM_TOKEN": "secret"}, [user, "registry=https://global.example/"])
    assert texts(sources.configured) == ["npm.corp.example", "scoped.example"]
    assert sources.environment == (("npm_config_registry", "https://npm.corp.example/"),)
    assert "secret" not in repr(sources)


def test_npm_references_in_npmrc_are_expanded() -> None:
    sources = npm_sources({"REGISTRY_HOST": "mirror.example"}, ["registry=https://${REGISTRY_HOST}/npm/"])
    assert texts(sources.configured) == ["mirror.example"]


def test_python_defaults_to_pypi_and_its_files() -> None:
    sources = python_sources({}, [], [])
    assert sources.configured == ()
    assert texts(sources.defaults) == ["pypi.org", "files.pythonhosted.org"]


@pytest.mark.parametrize(
    ("env", "uv", "pip", "configured", "defaults"),
    [
        ({"UV_INDEX_URL": "http://127.0.0.1:8000/simple"}, [], [], ["127.0.0.1:8000"], True),
        (
            {"UV_DEFAULT_INDEX": "https://a.example/simple", "PIP_INDEX_URL": "https://b.example/simple"},
            [],
            [],
            ["a.example", "b.example"],
            False,  # both tools have their own primary index
        ),
        ({"UV_INDEX": "corp=https://corp.example/simple other.example"}, [], [], ["corp.example"], True),
        (
            {"UV_EXTRA_INDEX_URL": "https://x.example/a https://y.example:8443/b"},
            [],
            [],
            ["x.example", "y.example:8443"],
            True,
        ),
        (
            {"PIP_FIND_LINKS": "/opt/wheels file:///srv/wheels https://links.example/"},
            [],
            [],
            ["links.example"],
            True,
        ),
        (
            {},
            ['index-url = "https://uv.example/simple"\n[[index]]\nurl = "https://more.example/simple"\n'],
            [
                "[global]\nindex-url = https://pip.example/simple\nextra-index-url = https://e1.example https://e2.example\n"
            ],
            ["uv.example", "pip.example", "more.example", "e1.example", "e2.example"],
            False,
        ),
        ({}, ['[[index]]\nurl = "https://d.example/simple"\ndefault = true\n'], [], ["d.example"], True),
        ({}, ['[pip]\nindex-url = "https://p.example/simple"\n'], [], ["p.example"], True),
        ({}, ["not = [valid toml"], ["[broken"], [], True),
    ],
)
def test_python_indexes_are_found_wherever_the_user_sets_them(
    env: dict[str, str], uv: list[str], pip: list[str], configured: list[str], defaults: bool
) -> None:
    sources = python_sources(env, uv, pip)
    assert texts(sources.configured) == configured
    assert bool(sources.defaults) is defaults


def test_the_users_index_variables_reach_the_sandbox() -> None:
    env = {"UV_INDEX_URL": "http://127.0.0.1:8000/simple", "PIP_EXTRA_INDEX_URL": "https://x/", "HOME": "/h"}
    assert dict(python_sources(env, [], []).environment) == {
        "UV_INDEX_URL": "http://127.0.0.1:8000/simple",
        "PIP_EXTRA_INDEX_URL": "https://x/",
    }


def test_only_the_users_and_the_systems_config_files_are_read() -> None:
    """Never a workspace's `.npmrc`, `uv.toml` or `pip.conf`: the files are named from HOME, the
    XDG config home, the variables the user set, and /etc — none relative to a working folder."""
    files = config_files({"XDG_CONFIG_HOME": "/home/u/.cfg", "UV_CONFIG_FILE": "/home/u/uv.toml"}, HOME)
    every = [path for paths in files.values() for path in paths]
    assert all(path.is_absolute() for path in every)
    assert files["npm"][0] == HOME / ".npmrc"
    assert Path("/home/u/.cfg/uv/uv.toml") in files["uv"]
    assert files["uv"][0] == Path("/home/u/uv.toml")
    assert Path("/home/u/.cfg/pip/pip.conf") in files["pip"]
    assert all(p.is_relative_to(HOME) or p.is_relative_to("/etc") or p.is_relative_to("/usr") for p in every)


def test_a_url_without_a_host_names_none() -> None:
    sources = npm_sources({"npm_config_registry": "file:///srv/registry"}, [])
    assert sources.configured == ()
    assert parse_host_entry("registry.npmjs.org") not in sources.configured
