"""What server-everything offers beyond tools, through the real `levelcode mcp …` commands, over
stdio and Streamable HTTP: the negotiated version, name and offers in `mcp list --json` and
`mcp get`; resources listed (with templates) and read; prompts listed and fetched. Load-bearing
direction: binary contents never print as base64, and a repository's entry cannot enable
sampling (the server then never offers its sampling tool)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from levelcode.mcp.config.tiers import parse_workspace_file
from levelcode.mcp.launch.trust_store import TrustStore
from tests.support.cli import run_cli, write_settings
from tests.support.everything import TRANSPORTS, everything_entry
from tests.support.servers import node_server

OFFERS = ["tools", "resources", "prompts", "logging", "completions"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_visibility_resources_and_prompts(transport: str, isolated_home: Path, tmp_path: Path) -> None:
    with everything_entry(transport) as entry:
        write_settings(isolated_home, {"mcpServers": {"everything": entry}})
        listed = run_cli(["mcp", "list", "--json"], isolated_home, cwd=tmp_path)
        got = run_cli(["mcp", "get", "everything"], isolated_home, cwd=tmp_path)
        resources = run_cli(["mcp", "resources", "everything", "--json"], isolated_home, cwd=tmp_path)
        text = run_cli(
            ["mcp", "read", "everything", "demo://resource/dynamic/text/7"], isolated_home, cwd=tmp_path
        )
        blob = run_cli(
            ["mcp", "read", "everything", "demo://resource/dynamic/blob/7"], isolated_home, cwd=tmp_path
        )
        prompts = run_cli(["mcp", "prompts", "everything"], isolated_home, cwd=tmp_path)
        prompt = run_cli(
            ["mcp", "prompt", "everything", "args-prompt", '{"city": "Paris", "state": "Texas"}'],
            isolated_home,
            cwd=tmp_path,
        )
    server = json.loads(listed.stdout)["servers"][0]
    assert server["protocol"] == "2025-11-25"
    assert server["serverInfo"]["name"] == "mcp-servers/everything"
    assert server["serverInfo"]["version"]
    assert server["offers"] == OFFERS
    assert {"everything__list_resources", "everything__read_resource"} <= {t["name"] for t in server["tools"]}
    assert "speaks:  MCP 2025-11-25 · mcp-servers/everything" in got.stdout
    assert "offers tools, resources, prompts, logging, completions" in got.stdout

    listing = json.loads(resources.stdout)
    assert "demo://resource/static/document/features.md" in {r["uri"] for r in listing["resources"]}
    assert "demo://resource/dynamic/text/{resourceId}" in {
        t["uriTemplate"] for t in listing["resourceTemplates"]
    }
    assert text.returncode == 0
    assert text.stdout.startswith("Resource 7: This is a plaintext resource")
    assert blob.returncode == 0
    assert "demo://resource/dynamic/blob/7: text/plain, " in blob.stdout
    assert "binary data]" in blob.stdout
    assert "UmVzb3VyY2" not in blob.stdout  # the base64 of "Resource…" is never printed

    assert "args-prompt — A prompt with two arguments" in prompts.stdout
    assert "    city (required): Name of the city" in prompts.stdout
    assert prompt.returncode == 0, prompt.stderr
    assert "What's weather in Paris, Texas?" in prompt.stdout


def test_a_missing_resource_and_an_unknown_prompt_fail_clearly(isolated_home: Path, tmp_path: Path) -> None:
    write_settings(
        isolated_home, {"mcpServers": {"everything": {"command": node_server("mcp-server-everything")}}}
    )
    missing = run_cli(["mcp", "read", "everything", "demo://nothing/here"], isolated_home, cwd=tmp_path)
    unknown = run_cli(["mcp", "prompt", "everything", "no-such-prompt"], isolated_home, cwd=tmp_path)
    assert missing.returncode == 1
    assert missing.stdout.startswith("ERROR: everything: reading demo://nothing/here failed")
    assert unknown.returncode == 1
    assert "no-such-prompt" in unknown.stderr


def test_a_repository_entry_cannot_enable_sampling(isolated_home: Path, tmp_path: Path) -> None:
    entry = {"command": node_server("mcp-server-everything"), "sampling": True}
    config = tmp_path / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"repo": entry}}))
    spec = parse_workspace_file({"repo": entry}, file=str(config)).servers[0]
    TrustStore(isolated_home / "state" / "trust.json").approve(tmp_path, spec, "approved")
    listed = run_cli(["mcp", "list", "--json"], isolated_home, cwd=tmp_path)
    view = json.loads(listed.stdout)
    tools = {t["tool"] for t in view["servers"][0]["tools"]}
    assert view["servers"][0]["phase"] == "running"
    assert "trigger-elicitation-request" in tools  # the server registers its client-feature tools
    assert "trigger-sampling-request" not in tools  # … but it was never told it may sample
    assert any("sampling: ignored: only your own settings" in p for p in view["problems"])


def test_the_users_own_entry_enables_sampling(isolated_home: Path, tmp_path: Path) -> None:
    entry = {"command": node_server("mcp-server-everything"), "sampling": True}
    write_settings(isolated_home, {"mcpServers": {"everything": entry}})
    listed = run_cli(["mcp", "list", "--json"], isolated_home, cwd=tmp_path)
    tools = {t["tool"] for t in json.loads(listed.stdout)["servers"][0]["tools"]}
    assert "trigger-sampling-request" in tools
