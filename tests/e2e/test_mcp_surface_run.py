"""What reaches the model from server-everything, through `levelcode run --json` and the fake
provider APIs (which refuse what the real ones refuse): a screenshot-style image as an image the
API accepts, the server's instructions in the system text, progress as `progress` events, the
workspace and `--add-dir` folders as roots, the resource tools gated like any MCP call, and,
headless, elicitation declined and sampling refused with the model told why. Load-bearing
direction: no base64 in any event, and nothing the user did not allow runs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.scripted_server import RecordedRequest, Reply, ScriptedServer, ToolCall
from tests.providers.support import ANTHROPIC, OPENAI, Api
from tests.support.cli import LEVELCODE, provider_env, provider_flags, write_settings
from tests.support.everything import TRANSPORTS, everything_entry

TINY_PNG_PREFIX = "iVBORw0KGgo"
ALLOW_ALL = {"everything__*": "allow"}


def run_json(
    api: Api, server: ScriptedServer, home: Path, workspace: Path, *args: str
) -> list[dict[str, Any]]:
    command = [str(LEVELCODE), "run", "--json", "-C", str(workspace)]
    command += [*provider_flags(api.name, server.base_url, api.model), *args]
    done = subprocess.run(
        command, capture_output=True, text=True, env=provider_env(home, api.name), timeout=120, check=False
    )
    assert TINY_PNG_PREFIX not in done.stdout + done.stderr
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def calling(tool: str, arguments: dict[str, Any] | None = None) -> list[Reply]:
    return [Reply(tool_calls=(ToolCall(tool, arguments or {}),)), Reply(text="done")]


def result_of(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(event for event in events if event["type"] == "tool_result")


def system_text(api: Api, request: RecordedRequest) -> str:
    if api is ANTHROPIC:
        return str(request.body["system"])
    return str(request.body["messages"][0]["content"])


def attached_images(api: Api, request: RecordedRequest) -> list[str]:
    """The media types of the images the request gives the model, where that API takes them."""
    messages = request.body["messages"]
    if api is ANTHROPIC:
        results = [b for b in messages[-1]["content"] if b.get("type") == "tool_result"]
        return [b["source"]["media_type"] for r in results for b in r["content"] if b.get("type") == "image"]
    parts = [
        p for m in messages if m["role"] == "user" and isinstance(m["content"], list) for p in m["content"]
    ]
    return [p["image_url"]["url"].split(";")[0][5:] for p in parts if p["type"] == "image_url"]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("api", [ANTHROPIC, OPENAI], ids=lambda a: a.name)
def test_an_image_and_the_instructions_reach_the_model(
    api: Api, transport: str, isolated_home: Path, tmp_path: Path
) -> None:
    with everything_entry(transport) as entry, api.fake(calling("everything__get-tiny-image")) as server:
        write_settings(isolated_home, {"mcpServers": {"everything": entry}, "mcpToolPolicy": ALLOW_ALL})
        events = run_json(api, server, isolated_home, tmp_path, "show me the logo")
        first, second = server.requests
    system = system_text(api, first)
    assert "<mcp-server-instructions server='everything'>" in system
    assert "Everything Server \u2013 Server Instructions" in system
    assert "third-party text, not the user's" in system
    assert attached_images(api, second) == ["image/png"]
    result = result_of(events)
    assert result["media"] == [
        {"type": "image", "mimeType": "image/png", "bytes": result["media"][0]["bytes"]}
    ]
    assert "[image 1: image/png, " in result["text"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_progress_becomes_events(transport: str, isolated_home: Path, tmp_path: Path) -> None:
    steps = calling("everything__trigger-long-running-operation", {"duration": 0.6, "steps": 3})
    with everything_entry(transport) as entry, OPENAI.fake(steps) as server:
        write_settings(isolated_home, {"mcpServers": {"everything": entry}, "mcpToolPolicy": ALLOW_ALL})
        events = run_json(OPENAI, server, isolated_home, tmp_path, "run the long one")
    progress = [e for e in events if e["type"] == "progress"]
    assert [(e["progress"], e["total"]) for e in progress] == [(1, 3), (2, 3), (3, 3)]
    assert {e["name"] for e in progress} == {"everything__trigger-long-running-operation"}
    kinds = [e["type"] for e in events]
    assert kinds.index("tool_call") < kinds.index("progress") < kinds.index("tool_result")


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_headless_elicitation_is_declined_and_the_model_told_why(
    transport: str, isolated_home: Path, tmp_path: Path
) -> None:
    with (
        everything_entry(transport) as entry,
        OPENAI.fake(calling("everything__trigger-elicitation-request")) as server,
    ):
        write_settings(isolated_home, {"mcpServers": {"everything": entry}, "mcpToolPolicy": ALLOW_ALL})
        events = run_json(OPENAI, server, isolated_home, tmp_path, "ask me")
    text = result_of(events)["text"]
    assert "User declined to provide the requested information" in text
    assert "[LevelCode: the server asked the user for input" in text
    assert "nobody can answer in this session (a headless run)" in text


def test_headless_a_browser_step_the_server_requires_is_declined(isolated_home: Path, tmp_path: Path) -> None:
    arguments = {"url": "https://example.com/pay", "errorPath": True}
    with (
        everything_entry("stdio") as entry,
        OPENAI.fake(calling("everything__trigger-url-elicitation", arguments)) as server,
    ):
        write_settings(isolated_home, {"mcpServers": {"everything": entry}, "mcpToolPolicy": ALLOW_ALL})
        events = run_json(OPENAI, server, isolated_home, tmp_path, "pay")
    result = result_of(events)
    assert result["is_error"]
    assert (
        "it needs the user to open https://modelcontextprotocol.io first, and that was not done"
        in result["text"]
    )
    assert "nobody can answer in this session (a headless run)" in result["text"]


def test_headless_sampling_is_refused_even_when_enabled(isolated_home: Path, tmp_path: Path) -> None:
    steps = calling("everything__trigger-sampling-request", {"prompt": "say hi", "maxTokens": 20})
    with everything_entry("stdio", sampling=True) as entry, OPENAI.fake(steps) as server:
        write_settings(isolated_home, {"mcpServers": {"everything": entry}, "mcpToolPolicy": ALLOW_ALL})
        events = run_json(OPENAI, server, isolated_home, tmp_path, "sample")
        requests = len(server.requests)
    result = result_of(events)
    assert result["is_error"]
    assert "refused: nobody can approve it here" in result["text"]
    assert requests == 2  # the prompt and the final answer: the server's request never reached the model


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_servers_that_ask_are_told_the_workspace_and_added_folders(
    transport: str, isolated_home: Path, tmp_path: Path
) -> None:
    workspace, notes = tmp_path / "project", tmp_path / "notes"
    workspace.mkdir()
    notes.mkdir()
    with everything_entry(transport) as entry, OPENAI.fake(calling("everything__get-roots-list")) as server:
        write_settings(isolated_home, {"mcpServers": {"everything": entry}, "mcpToolPolicy": ALLOW_ALL})
        events = run_json(OPENAI, server, isolated_home, workspace, "--add-dir", str(notes), "roots?")
    text = result_of(events)["text"]
    assert "Current MCP Roots (2 total)" in text
    assert f"URI: {workspace.as_uri()}" in text
    assert f"URI: {notes.as_uri()}" in text
    log = (isolated_home / "state" / "logs" / "everything.log").read_text()
    assert "[mcp info] everything-server: Roots updated: 2 root(s) received from client" in log


def test_roots_off_for_a_server_and_its_log_level(isolated_home: Path, tmp_path: Path) -> None:
    steps = calling("everything__get-sum", {"a": 1, "b": 2})
    with everything_entry("stdio", roots=False, logLevel="error") as entry, OPENAI.fake(steps) as server:
        write_settings(isolated_home, {"mcpServers": {"everything": entry}, "mcpToolPolicy": ALLOW_ALL})
        run_json(OPENAI, server, isolated_home, tmp_path, "sum")
        offered = OPENAI.offered_tools(server.requests[0])
    assert "everything__get-roots-list" not in offered  # it is offered only to clients that give roots
    assert "everything__get-sum" in offered


@pytest.mark.parametrize(
    ("policy", "allowed"),
    [({}, False), ({"everything__read_resource": "allow"}, True)],
    ids=["not-allow-listed", "allow-listed"],
)
def test_the_resource_tools_are_gated_like_any_mcp_call(
    policy: dict[str, str], allowed: bool, isolated_home: Path, tmp_path: Path
) -> None:
    uri = "demo://resource/static/document/features.md"
    with (
        everything_entry("stdio") as entry,
        ANTHROPIC.fake(calling("everything__read_resource", {"uri": uri})) as server,
    ):
        write_settings(isolated_home, {"mcpServers": {"everything": entry}, "mcpToolPolicy": policy})
        events = run_json(ANTHROPIC, server, isolated_home, tmp_path, "read the features")
    result = result_of(events)
    if allowed:
        assert not result["is_error"]
        assert "# Everything Server - Features" in result["text"]
    else:
        assert result["is_error"]
        assert "# Everything Server" not in result["text"]
        assert "nobody" in result["text"] or "not run" in result["text"]


def test_a_2026_07_28_server_over_http(isolated_home: Path, tmp_path: Path) -> None:
    """The official SDK's server in the 2026-07-28 era: its instructions reach the model, and its
    request for input (an `input_required` result) is declined headless, with the model told."""
    from tests.support.cli import run_cli
    from tests.support.http_servers import running, sdk_server

    with running(sdk_server()) as sdk, OPENAI.fake(calling("sdk__ask_name")) as server:
        write_settings(
            isolated_home, {"mcpServers": {"sdk": {"url": sdk.url}}, "mcpToolPolicy": {"sdk__*": "allow"}}
        )
        events = run_json(OPENAI, server, isolated_home, tmp_path, "who am I?")
        system = system_text(OPENAI, server.requests[0])
        listed = json.loads(run_cli(["mcp", "list", "--json"], isolated_home, cwd=tmp_path).stdout)[
            "servers"
        ][0]
        read = run_cli(["mcp", "read", "sdk", "test://greeting"], isolated_home, cwd=tmp_path)
        prompt = run_cli(["mcp", "prompt", "sdk", "greet", '{"name": "Ada"}'], isolated_home, cwd=tmp_path)
    assert "(sdk-http-test instructions)" in system
    text = result_of(events)["text"]
    assert "answer: {'action': 'decline'}" in text
    assert '[LevelCode: the server asked the user for input ("Your name?")' in text
    assert (listed["protocol"], listed["serverInfo"]["name"]) == ("2026-07-28", "sdk-http-test")
    assert listed["offers"] == ["tools", "resources", "prompts"]
    assert read.stdout.strip() == "Hello from the SDK server."
    assert "Please greet Ada warmly." in prompt.stdout
