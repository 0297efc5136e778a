"""`levelcode mcp search` and `levelcode mcp add … --from-registry`, the real CLI against a registry
on 127.0.0.1 serving the recorded server.json files (tests/support/mcp_registry.py).

Load-bearing direction: whatever the registry answers badly — another server or version than
asked, `latest` or a range for a version, a package kind LevelCode cannot run, a malformed answer,
a version it does not have — is one line on stderr, a non-zero exit, and the settings file exactly
as it was; no secret the user types or gives ever reaches the file. The second corpus: finding
servers by name and description page after page, and adding one in one command as a pinned,
sandboxed entry that `mcp get` says came from the registry.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import LEVELCODE, cli_env, run_cli, write_settings
from tests.support.mcp_registry import LocalRegistry, local_registry, recorded
from tests.support.terminal import Terminal

EVERYTHING = "io.github.modelcontextprotocol/server-everything"


@pytest.fixture
def registry() -> Any:
    with local_registry() as served:
        yield served


def levelcode(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, home, cwd=home)


def servers(home: Path) -> dict[str, Any]:
    path = home / "settings.json"
    return dict(json.loads(path.read_text())["mcpServers"]) if path.exists() else {}


# --- search ---------------------------------------------------------------------------------------


def test_search_lists_name_title_description_version_and_how_it_runs(
    isolated_home: Path, registry: LocalRegistry
) -> None:
    done = levelcode(isolated_home, "mcp", "search", "exa-labs", "--registry", registry.url)
    assert done.returncode == 0, done.stderr
    description = (
        "MCP server with Exa for web search and web crawling. Exa is the search engine for AI Applications."
    )
    assert done.stdout.splitlines() == [
        "io.github.exa-labs/exa-mcp-server  3.2.0  (local: npm · remote: sse)",
        f"    {description}",
        "    add: levelcode mcp add io.github.exa-labs/exa-mcp-server --from-registry",
        f'1 server matching "exa-labs" at {registry.url}',
    ]
    titled = levelcode(isolated_home, "mcp", "search", "context7", "--registry", registry.url).stdout
    assert "    Context7 — Up-to-date code docs for any prompt" in titled


def test_search_pages_and_says_there_is_more(isolated_home: Path, registry: LocalRegistry) -> None:
    first = levelcode(isolated_home, "mcp", "search", "io.github", "--limit", "2", "--registry", registry.url)
    assert first.stdout.count("add: levelcode mcp add") == 2
    assert "more match: show more with --limit 4, or all with --all" in first.stdout
    every = levelcode(isolated_home, "mcp", "search", "io.github", "--all", "--registry", registry.url)
    listed = every.stdout.count("add: levelcode mcp add")
    assert listed == sum(1 for name in registry.versions if "io.github" in name)
    assert "more match" not in every.stdout


def test_search_by_what_it_does(isolated_home: Path, registry: LocalRegistry) -> None:
    by_name = levelcode(isolated_home, "mcp", "search", "scraping", "--registry", registry.url)
    assert "0 servers" in by_name.stdout
    assert "add --describe" in by_name.stdout
    described = levelcode(
        isolated_home, "mcp", "search", "web scraping", "--describe", "--registry", registry.url
    )
    assert "io.github.D4Vinci/Scrapling  0.5  (local: oci, pypi)" in described.stdout
    assert "com.apify/apify-mcp-server" not in described.stdout  # "scrapers", not "scraping"


def test_search_json(isolated_home: Path, registry: LocalRegistry) -> None:
    done = levelcode(isolated_home, "mcp", "search", "apify", "--json", "--registry", registry.url)
    (server,) = json.loads(done.stdout)["servers"]
    assert server["remotes"] == ["streamable-http"]
    assert server["add"] == "levelcode mcp add com.apify/apify-mcp-server --from-registry"


def test_registry_text_reaches_the_terminal_escaped(isolated_home: Path, registry: LocalRegistry) -> None:
    hostile = {
        **recorded("playwright-mcp"),
        "name": "io.github.x/y",
        "description": "ok\x1b]0;pwned\x07\x1b[2J",
    }
    registry.add(hostile)
    done = levelcode(isolated_home, "mcp", "search", "io.github.x", "--registry", registry.url)
    assert "\x1b" not in done.stdout
    assert "\\x1b" in done.stdout


def test_an_unreachable_registry_is_one_line(isolated_home: Path) -> None:
    done = levelcode(isolated_home, "mcp", "search", "x", "--registry", "http://127.0.0.1:9")
    assert done.returncode == 1
    assert done.stderr.startswith("levelcode: http://127.0.0.1:9 could not be reached")
    assert done.stderr.count("\n") == 1


# --- add --------------------------------------------------------------------------------------------


def test_add_writes_a_pinned_sandboxed_entry_with_its_origin(
    isolated_home: Path, registry: LocalRegistry
) -> None:
    done = levelcode(isolated_home, "mcp", "add", EVERYTHING, "--from-registry", "--registry", registry.url)
    assert done.returncode == 0, done.stderr
    assert servers(isolated_home) == {
        "server-everything": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-everything@2026.8.31"],
            "sandbox": True,
            "registry": {"url": registry.url, "name": EVERYTHING, "version": "2026.8.31"},
        }
    }
    assert (
        f"  from:    {EVERYTHING} 2026.8.31 from {registry.url} (publisher io.github.modelcontextprotocol)"
        in done.stdout
    )
    assert "network only to the npm registry" in done.stdout
    shown = levelcode(isolated_home, "mcp", "get", "server-everything", "--no-start")
    assert f"  from:    {EVERYTHING} 2026.8.31 from {registry.url}" in shown.stdout
    assert json.loads(
        levelcode(isolated_home, "mcp", "get", "server-everything", "--no-start", "--json").stdout
    )["registry"] == {"url": registry.url, "name": EVERYTHING, "version": "2026.8.31"}


def test_a_version_and_a_name_of_your_own(isolated_home: Path, registry: LocalRegistry) -> None:
    registry.add(
        {
            **recorded("server-everything"),
            "version": "2026.9.1",
            "packages": [{**recorded("server-everything")["packages"][0], "version": "2026.9.1"}],
        }
    )
    done = levelcode(
        isolated_home,
        "mcp",
        "add",
        "everything",
        "--from-registry",
        f"{EVERYTHING}@2026.8.31",
        "--registry",
        registry.url,
    )
    assert done.returncode == 0, done.stderr
    assert (
        servers(isolated_home)["everything"]["args"][1] == "@modelcontextprotocol/server-everything@2026.8.31"
    )
    latest = levelcode(
        isolated_home, "mcp", "add", "newest", "--from-registry", EVERYTHING, "--registry", registry.url
    )
    assert latest.returncode == 0, latest.stderr
    assert servers(isolated_home)["newest"]["args"][1].endswith("@2026.9.1")


def test_the_flag_before_the_server_reads_the_same(isolated_home: Path, registry: LocalRegistry) -> None:
    done = levelcode(
        isolated_home, "mcp", "add", "--from-registry", f"{EVERYTHING}@2026.8.31", "--registry", registry.url
    )
    assert done.returncode == 0, done.stderr
    assert list(servers(isolated_home)) == ["server-everything"]


def test_the_registry_setting_is_used(isolated_home: Path, registry: LocalRegistry) -> None:
    write_settings(isolated_home, {"mcpRegistry": registry.url})
    done = levelcode(isolated_home, "mcp", "add", "io.github.Brody900/excel-lsp", "--from-registry")
    assert done.returncode == 0, done.stderr
    assert servers(isolated_home)["excel-lsp"]["args"] == ["excel-lsp==0.1.0", "serve"]


def test_a_secret_is_a_reference_and_the_command_to_set_it_is_named(
    isolated_home: Path, registry: LocalRegistry
) -> None:
    done = levelcode(
        isolated_home,
        "mcp",
        "add",
        "io.github.brave/brave-search-mcp-server",
        "--from-registry",
        "--registry",
        registry.url,
    )
    assert servers(isolated_home)["brave-search-mcp-server"]["env"] == {"BRAVE_API_KEY": "${BRAVE_API_KEY}"}
    assert "not set now: export BRAVE_API_KEY=… before it starts" in done.stdout
    listed = levelcode(isolated_home, "mcp", "list")  # at start, the missing one and how to set it
    assert "env BRAVE_API_KEY refers to ${BRAVE_API_KEY}, which is not set" in listed.stdout + listed.stderr
    assert "export BRAVE_API_KEY=…" in listed.stdout + listed.stderr


@pytest.mark.parametrize(
    "value", ["BSA-real-secret-0123456789", "${BRAVE_API_KEY:-BSA-real-secret-0123456789}"]
)
def test_a_secret_given_as_its_value_is_refused_and_nothing_is_written(
    isolated_home: Path, registry: LocalRegistry, value: str
) -> None:
    write_settings(isolated_home, {"mcpRegistry": registry.url})
    before = (isolated_home / "settings.json").read_bytes()
    done = levelcode(
        isolated_home,
        "mcp",
        "add",
        "io.github.brave/brave-search-mcp-server",
        "--from-registry",
        "--input",
        f"BRAVE_API_KEY={value}",
    )
    assert done.returncode == 2
    assert "is a secret: LevelCode writes only a reference" in done.stderr
    assert (isolated_home / "settings.json").read_bytes() == before
    assert "BSA-real-secret" not in done.stdout + done.stderr


def test_required_values_are_named_with_the_flag_headless(
    isolated_home: Path, registry: LocalRegistry
) -> None:
    done = levelcode(
        isolated_home,
        "mcp",
        "add",
        "com.example/tenant-remote",
        "--from-registry",
        "--registry",
        registry.url,
    )
    assert done.returncode == 2
    assert "needs values LevelCode cannot choose for you: tenant_id" in done.stderr
    assert "--input tenant_id=VALUE" in done.stderr
    assert servers(isolated_home) == {}
    given = levelcode(
        isolated_home,
        "mcp",
        "add",
        "com.example/tenant-remote",
        "--from-registry",
        "--input",
        "tenant_id=acme",
        "--registry",
        registry.url,
    )
    assert given.returncode == 0, given.stderr
    assert servers(isolated_home)["tenant-remote"]["url"] == "https://acme.api.example.com/mcp"


def test_an_input_the_server_does_not_take_is_refused(isolated_home: Path, registry: LocalRegistry) -> None:
    done = levelcode(
        isolated_home,
        "mcp",
        "add",
        "io.github.Brody900/excel-lsp",
        "--from-registry",
        "--input",
        "PORT=1",
        "--registry",
        registry.url,
    )
    assert done.returncode == 2
    assert "--input PORT: io.github.Brody900/excel-lsp asks for no such value" in done.stderr


def test_a_remote_from_the_registry_by_transport(isolated_home: Path, registry: LocalRegistry) -> None:
    done = levelcode(
        isolated_home,
        "mcp",
        "add",
        "io.github.exa-labs/exa-mcp-server",
        "--from-registry",
        "-t",
        "sse",
        "--registry",
        registry.url,
    )
    assert done.returncode == 0, done.stderr
    entry = servers(isolated_home)["exa-mcp-server"]
    assert (entry["type"], entry["url"]) == (
        "sse",
        "https://mcp.exa.ai/mcp?tools=web_search_exa,web_search_advanced_exa,crawling_exa",
    )


def test_other_forms_with_from_registry_are_refused(isolated_home: Path, registry: LocalRegistry) -> None:
    done = levelcode(
        isolated_home,
        "mcp",
        "add",
        "x",
        "--from-registry",
        EVERYTHING,
        "-e",
        "A=1",
        "--registry",
        registry.url,
    )
    assert done.returncode == 2
    assert "--from-registry makes the whole entry" in done.stderr
    alone = levelcode(isolated_home, "mcp", "add", "x", "--input", "A=1", "--", "true")
    assert alone.returncode == 2
    assert "add --from-registry" in alone.stderr


# --- a registry that answers badly --------------------------------------------------------------


def _version_path(name: str, version: str = "latest") -> str:
    return f"/v0.1/servers/{name.replace('/', '%2F')}/versions/{version}"


def _answer(server: dict[str, Any]) -> dict[str, Any]:
    return {"server": server, "_meta": {}}


BAD_ANSWERS = [
    (
        "another server",
        _answer({**recorded("server-everything"), "name": "io.github.evil/server-everything"}),
        "answered with 'io.github.evil/server-everything'",
    ),
    (
        "latest as its version",
        _answer({**recorded("server-everything"), "version": "latest"}),
        "is not one release",
    ),
    (
        "a range as its version",
        _answer({**recorded("server-everything"), "version": "^2026.8.0"}),
        "is not one release",
    ),
    (
        "a package at latest",
        _answer(
            {
                **recorded("server-everything"),
                "packages": [{**recorded("server-everything")["packages"][0], "version": "latest"}],
            }
        ),
        "not an exact version",
    ),
    (
        "a package kind it cannot run",
        _answer(
            {
                **recorded("server-everything"),
                "packages": [
                    {
                        "registryType": "mcpb",
                        "identifier": "https://github.com/x/y.mcpb",
                        "fileSha256": "a" * 64,
                    }
                ],
            }
        ),
        "offers only mcpb package",
    ),
    ("a malformed answer", "{not json", "not JSON"),
    ("the wrong shape", {"servers": []}, 'expected {"server": {...}}'),
    (
        "a deleted server",
        {
            "server": recorded("server-everything"),
            "_meta": {"io.modelcontextprotocol.registry/official": {"status": "deleted"}},
        },
        "was deleted from the registry",
    ),
]


@pytest.mark.parametrize(("why", "answer", "said"), BAD_ANSWERS, ids=[w for w, _, _ in BAD_ANSWERS])
def test_a_bad_answer_is_one_line_and_writes_nothing(
    isolated_home: Path, registry: LocalRegistry, why: str, answer: object, said: str
) -> None:
    write_settings(isolated_home, {"mcpRegistry": registry.url, "mcpServers": {"mine": {"command": "true"}}})
    before = (isolated_home / "settings.json").read_bytes()
    registry.answer(_version_path(EVERYTHING), 200, answer)
    done = levelcode(isolated_home, "mcp", "add", EVERYTHING, "--from-registry")
    assert done.returncode == 1, why
    assert said in done.stderr, why
    assert done.stderr.count("\n") == 1, done.stderr
    assert (isolated_home / "settings.json").read_bytes() == before


def test_a_version_the_registry_does_not_have(isolated_home: Path, registry: LocalRegistry) -> None:
    done = levelcode(
        isolated_home, "mcp", "add", "x", "--from-registry", f"{EVERYTHING}@1.0.0", "--registry", registry.url
    )
    assert done.returncode == 1
    assert (
        f"has no version 1.0.0 of {EVERYTHING}; its latest: levelcode mcp add {EVERYTHING} --from-registry"
        in done.stderr
    )
    assert servers(isolated_home) == {}


def test_a_version_other_than_asked_is_refused(isolated_home: Path, registry: LocalRegistry) -> None:
    registry.answer(
        _version_path(EVERYTHING, "2026.8.31"),
        200,
        _answer({**recorded("server-everything"), "version": "2026.9.9"}),
    )
    done = levelcode(
        isolated_home,
        "mcp",
        "add",
        "x",
        "--from-registry",
        f"{EVERYTHING}@2026.8.31",
        "--registry",
        registry.url,
    )
    assert done.returncode == 1
    assert "the registry answered with version '2026.9.9'" in done.stderr
    assert servers(isolated_home) == {}


# --- asked on a terminal ----------------------------------------------------------------------------


def test_a_terminal_is_asked_for_each_required_value_and_a_pasted_secret_is_not_kept(
    terminal: Terminal, isolated_home: Path, registry: LocalRegistry
) -> None:
    remote = {
        "name": "com.example/asks",
        "version": "1.0.0",
        "remotes": [
            {
                "type": "streamable-http",
                "url": "https://{tenant}.api.example.com/mcp",
                "variables": {"tenant": {"description": "Your tenant", "isRequired": True}},
                "headers": [
                    {"name": "X-Key", "isSecret": True, "isRequired": True, "description": "API key"}
                ],
            }
        ],
    }
    registry.add(remote)
    env = cli_env(isolated_home, TERM="xterm-256color")
    terminal.start(
        [str(LEVELCODE), "mcp", "add", "com.example/asks", "--from-registry", "--registry", registry.url],
        env,
        cwd=str(isolated_home),
    )
    terminal.wait_for("  tenant: ")
    terminal.type("acme")
    terminal.send("Enter")
    terminal.wait_for("  variable [ASKS_X_KEY]: ")
    terminal.type("sk-live-0123456789abcdef")  # the secret itself, pasted by mistake: asked again
    terminal.send("Enter")
    terminal.wait_for("that is not the name of a variable")  # and the question again
    terminal.type("ACME_KEY")
    terminal.send("Enter")
    screen = terminal.wait_for("[exited 0]")
    assert "Added MCP server 'asks'" in screen
    entry = servers(isolated_home)["asks"]
    assert entry["url"] == "https://acme.api.example.com/mcp"
    assert entry["headers"] == {"X-Key": "${ACME_KEY}"}
    assert "sk-live" not in (isolated_home / "settings.json").read_text()
