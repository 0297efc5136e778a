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
    if api is ANTHROPIC:  # a string, or text blocks (the last one carrying the cache breakpoint)
        system = request.body["system"]
        return system if isinstance(system, str) else "".join(block["text"] for block in system)
    return str(request.body["messages"][0]["content"])


def attached_images(api: Api, request: RecordedRequest) -> list[str]:
    """The media types of the images the request gives the model, where that API takes them."""
    messages = request.body["messages"]
    if api is ANTHROPIC:
        results = [b for b in messages[-1]["content"] if b.get("type") == "tool_result"]
        blocks = [b for r in results if isinstance(r["content"], list) for b in r["content"]]
        return [b["source"]["media_type"] for b in blocks if b.get("type") == "image"]
    parts = [
        p for m in messages if m["role"] == "user" and isinstance(m["content"], list) for p in m["content"]
    ]
    return [p["image_url"]["url"].split(";")[0][5:] for p in parts if p["type"] == "image_url"]


CALLS = (
    ToolCall("everything__get-tiny-image", {}),
    ToolCall("everything__trigger-long-running-operation", {"duration": 0.6, "steps": 3}),
    ToolCall("everything__trigger-elicitation-request", {}),
    ToolCall("everything__trigger-url-elicitation", {"url": "https://example.com/pay", "errorPath": True}),
    ToolCall("everything__get-roots-list", {}),
    ToolCall("everything__read_resource", {"uri": "demo://resource/static/document/features.md"}),
)


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("api", [ANTHROPIC, OPENAI], ids=lambda a: a.name)
def test_what_reaches_the_model_headless(
    api: Api, transport: str, isolated_home: Path, tmp_path: Path
) -> None:
    """One run, five calls: the image, progress, a form and a browser step (both declined, the
    model told why), and roots (the workspace and the --add-dir folder)."""
    workspace, notes = tmp_path / "project", tmp_path / "notes"
    workspace.mkdir()
    notes.mkdir()
    with (
        everything_entry(transport) as entry,
        api.fake([Reply(tool_calls=CALLS), Reply(text="done")]) as server,
    ):
        write_settings(isolated_home, {"mcpServers": {"everything": entry}, "mcpToolPolicy": ALLOW_ALL})
        events = run_json(api, server, isolated_home, workspace, "--add-dir", str(notes), "everything")
        first, second = server.requests
    system = system_text(api, first)
    assert "<mcp-server-instructions server='everything'>" in system
    assert "Everything Server \u2013 Server Instructions" in system
    assert "third-party text, not the user's" in system
    assert attached_images(api, second) == ["image/png"]
    image, long_op, form, browser, roots, resource = (e for e in events if e["type"] == "tool_result")
    assert image["media"] == [{"type": "image", "mimeType": "image/png", "bytes": image["media"][0]["bytes"]}]
    assert "[image 1: image/png, " in image["text"]

    progress = [e for e in events if e["type"] == "progress"]
    assert [(e["progress"], e["total"]) for e in progress] == [(1, 3), (2, 3), (3, 3)]
    assert {e["name"] for e in progress} == {"everything__trigger-long-running-operation"}
    assert not long_op["is_error"]

    assert "User declined to provide the requested information" in form["text"]
    assert "[LevelCode: the server asked the user for input" in form["text"]
    assert "nobody can answer in this session (a headless run)" in form["text"]
    assert browser["is_error"]
    assert (
        "it needs the user to open https://modelcontextprotocol.io first, and that was not done"
        in browser["text"]
    )

    assert "Current MCP Roots (2 total)" in roots["text"]
    assert f"URI: {workspace.as_uri()}" in roots["text"]
    assert f"URI: {notes.as_uri()}" in roots["text"]
    log = (isolated_home / "state" / "logs" / "everything.log").read_text()
    assert "[mcp info] everything-server: Roots updated: 2 root(s) received from client" in log
    assert not resource["is_error"]  # allow-listed, the resource tool reads
    assert "# Everything Server - Features" in resource["text"]


def test_sampling_refused_headless_and_the_resource_tools_gated(isolated_home: Path, tmp_path: Path) -> None:
    """Sampling enabled in the user's entry is still refused with nobody to approve; the resource
    tool, not allow-listed, is refused like any MCP call."""
    calls = (
        ToolCall("everything__trigger-sampling-request", {"prompt": "say hi", "maxTokens": 20}),
        ToolCall("everything__read_resource", {"uri": "demo://resource/static/document/features.md"}),
    )
    policy = {"everything__trigger-sampling-request": "allow"}
    with (
        everything_entry("stdio", sampling=True) as entry,
        OPENAI.fake([Reply(tool_calls=calls), Reply(text="ok")]) as server,
    ):
        write_settings(isolated_home, {"mcpServers": {"everything": entry}, "mcpToolPolicy": policy})
        events = run_json(OPENAI, server, isolated_home, tmp_path, "sample")
        requests = len(server.requests)
    sampling, resource = (e for e in events if e["type"] == "tool_result")
    assert sampling["is_error"]
    assert "refused: nobody can approve it here" in sampling["text"]
    assert requests == 2  # the prompt and the final answer: the server's request never reached the model
    assert resource["is_error"]
    assert "# Everything Server" not in resource["text"]
    assert "nobody can approve" in resource["text"]


def test_a_log_level_and_roots_turned_off_per_server(isolated_home: Path, tmp_path: Path) -> None:
    with everything_entry("stdio") as entry, OPENAI.fake(calling("quiet__get-roots-list")) as server:
        servers = {"quiet": {**entry, "logLevel": "error"}, "noroots": {**entry, "roots": False}}
        write_settings(isolated_home, {"mcpServers": servers, "mcpToolPolicy": {"quiet__*": "allow"}})
        events = run_json(OPENAI, server, isolated_home, tmp_path, "roots?")
        offered = OPENAI.offered_tools(server.requests[0])
    assert "Current MCP Roots (1 total)" in result_of(events)["text"]
    assert "[mcp info]" not in (isolated_home / "state" / "logs" / "quiet.log").read_text()
    assert "noroots__get-roots-list" not in offered  # offered only to clients that give roots
    assert "noroots__get-sum" in offered


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
