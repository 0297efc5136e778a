"""Each of the organisation's rules beyond the server lists, end to end through a real `levelcode`
under a policy file (`run` against a fake provider, `mcp list`/`mcp disable`/`mcp remove`, real
servers): required servers, tool rules, sampling, autopilot and the network, and a policy file
that cannot be used — bad JSON, or a file that states nothing (empty, blank, `null`, `[]`, any
JSON but an object: a deployment that failed half-way must not lift every rule). Load-bearing
direction: what the policy forbids does not happen — whether the user's settings or a
repository ask for it — and the refusal names the policy's file; the positive controls show the
same scene without the policy (no file, or `{}`) does it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from levelcode.mcp.config.allow_rules import definition_of
from tests.fakes.fake_openai import offered_tool_names
from tests.fakes.scripted_server import Reply, ScriptedServer, ToolCall
from tests.providers.support import OPENAI
from tests.support.cli import provider_env, provider_flags, write_settings
from tests.support.listener import Listener, listener
from tests.support.managed_levelcode import policy_command
from tests.support.org_policy import (
    approve_repository_server,
    hostile_entry,
    json_lines,
    policy_file,
    repository_servers,
    under_policy,
    words,
)
from tests.support.servers import FAULT_SERVER, node_server

ABSENT = "absent-policy.json"


def run(policy: Path, server: ScriptedServer, home: Path, workspace: Path, *args: str) -> Any:
    command = [*policy_command(policy), "run", "-C", str(workspace), "--json"]
    command += [*provider_flags("openai", server.base_url, OPENAI.model), *args]
    env = provider_env(home, "openai")
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)


def results(done: Any) -> list[str]:
    return [e["text"] for e in json_lines(done.stdout) if e["type"] == "tool_result"]


def notices(done: Any) -> str:
    return "\n".join(e["text"] for e in json_lines(done.stdout) if e["type"] == "notice")


def calling(tool: str, arguments: dict[str, Any]) -> list[Reply]:
    return [Reply(tool_calls=(ToolCall(tool, arguments),)), Reply(text="done")]


# --- required servers --------------------------------------------------------------------------


def test_a_required_server_runs_and_neither_the_user_nor_a_repository_replaces_it(
    isolated_home: Path, tmp_path: Path
) -> None:
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    write_settings(isolated_home, {"mcpServers": {"memory": hostile_entry(mine)}})
    repository_servers(tmp_path, {"memory": hostile_entry(theirs)})
    policy = policy_file(
        tmp_path,
        {"requiredMcpServers": {"memory": {"command": node_server("mcp-server-memory")}}, "contact": "#it"},
    )
    listed = under_policy(policy, isolated_home, tmp_path, "mcp", "list", "-v")
    disabled = under_policy(policy, isolated_home, tmp_path, "mcp", "disable", "memory")
    removed = under_policy(policy, isolated_home, tmp_path, "mcp", "remove", "memory")
    got = under_policy(policy, isolated_home, tmp_path, "mcp", "get", "memory", "--no-start", "--json")
    assert not mine.exists(), words(listed)
    assert not theirs.exists(), words(listed)
    assert f"memory · running · organisation · {policy}" in listed.stdout
    assert "mcpServers.memory: server name already defined in organisation" in listed.stdout
    required = f"'memory' is required by your organisation's policy ({policy})"
    assert disabled.returncode == 1
    assert f"nothing changed: {required}: it cannot be disabled — #it" in disabled.stderr
    assert removed.returncode == 1
    assert f"nothing changed: {required}: it cannot be removed — #it" in removed.stderr
    assert json.loads((isolated_home / "settings.json").read_text())["mcpServers"]["memory"] == hostile_entry(
        mine
    )
    info = json.loads(got.stdout)
    assert (info["tier"], info["file"], info["organisation"]["required"]) == (
        "organisation",
        str(policy),
        True,
    )
    assert info["entry"] == {"command": node_server("mcp-server-memory")}


def test_without_the_policy_the_users_entry_of_that_name_runs(isolated_home: Path, tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    write_settings(isolated_home, {"mcpServers": {"memory": hostile_entry(mine)}})
    done = under_policy(tmp_path / ABSENT, isolated_home, tmp_path, "mcp", "list", "-v")
    assert mine.exists(), words(done)


# --- remote servers by URL ----------------------------------------------------------------------


def test_a_denied_url_is_never_contacted_however_the_repository_spells_it(
    isolated_home: Path, tmp_path: Path
) -> None:
    with listener() as seen:
        port = seen.url.rsplit(":", 1)[1]
        spelt = {"remote": {"url": f"http://trusted.example@LocalHost:{port}/mcp"}}
        repository_servers(tmp_path, spelt)
        approve_repository_server(isolated_home, tmp_path, "remote", spelt["remote"])
        policy = policy_file(tmp_path, {"deniedMcpServers": [{"url": "http://localhost/*"}]})
        done = under_policy(policy, isolated_home, tmp_path, "mcp", "list", "-v")
        assert seen.seen == [], words(done)
        control = under_policy(tmp_path / ABSENT, isolated_home, tmp_path, "mcp", "list", "-v")
        assert seen.seen, words(control)
    assert 'it matches deniedMcpServers[0] (url "http://localhost/*")' in done.stdout


# --- tool rules ---------------------------------------------------------------------------------

ECHO = {
    "description": "Echo a message",
    "inputSchema": {"type": "object"},
    "annotations": {"readOnlyHint": True},
}


def fault_server(tmp_path: Path) -> dict[str, Any]:
    definitions = tmp_path / "definitions.json"
    definitions.write_text(json.dumps({"echo": ECHO}))
    return {"command": sys.executable, "args": [str(FAULT_SERVER), "--definitions", str(definitions)]}


def test_the_organisations_deny_beats_the_users_allow(isolated_home: Path, tmp_path: Path) -> None:
    settings = {"mcpServers": {"fault": fault_server(tmp_path)}, "mcpToolPolicy": {"fault__echo": "allow"}}
    write_settings(isolated_home, settings)
    policy = policy_file(tmp_path, {"mcpToolPolicy": {"*__echo": "deny"}, "contact": "#it"})
    with OPENAI.fake(calling("fault__echo", {"message": "ran"}) * 2) as server:
        done = run(policy, server, isolated_home, tmp_path, "go")
        control = run(tmp_path / ABSENT, server, isolated_home, tmp_path, "go")
    assert done.returncode == 0, done.stderr
    (refused,) = results(done)
    assert refused == (
        "ERROR: MCP tool 'fault__echo' was not run: it is denied by your organisation's policy "
        f'({policy}): mcpToolPolicy["*__echo"] — #it. Do not retry this call; tell the user what you '
        "wanted to do instead."
    )
    assert results(control) == ["ran"]


def test_the_organisations_ask_beats_a_repositorys_always(isolated_home: Path, tmp_path: Path) -> None:
    """The user answered "always" for a repository's tool; the organisation asks every time, so
    headless (nobody to ask) it is refused, and the refusal suggests no allow-list."""
    entry = fault_server(tmp_path)
    repository_servers(tmp_path, {"repo": entry})
    spec = approve_repository_server(isolated_home, tmp_path, "repo", entry)
    from levelcode.mcp.launch.trust_store import TrustStore

    definition = definition_of(ECHO["description"], ECHO["inputSchema"], ECHO["annotations"])
    TrustStore(isolated_home / "state" / "trust.json").allow_tool(tmp_path, spec, "echo", definition)
    policy = policy_file(tmp_path, {"mcpToolPolicy": {"repo__echo": "ask"}})
    with OPENAI.fake(calling("repo__echo", {"message": "ran"}) * 2) as server:
        done = run(policy, server, isolated_home, tmp_path, "go")
        control = run(tmp_path / ABSENT, server, isolated_home, tmp_path, "go")
    (refused,) = results(done)
    said = f"It is asked before every call by your organisation's policy ({policy})"
    assert said + ': mcpToolPolicy["repo__echo"]' in refused
    assert 'mcpToolPolicy" in' not in refused  # no advice to allow-list it
    assert results(control) == ["ran"]


# --- sampling ------------------------------------------------------------------------------------


def test_sampling_is_off_whatever_the_users_entry_says(isolated_home: Path, tmp_path: Path) -> None:
    """server-everything offers its sampling tool only to a client that says it can sample: under
    the policy LevelCode does not say so (the user's `"sampling": true` notwithstanding), so the
    tool is not there; without the policy it is, and headless it is refused by the user's gate."""
    entry = {"command": node_server("mcp-server-everything"), "sampling": True}
    write_settings(
        isolated_home, {"mcpServers": {"everything": entry}, "mcpToolPolicy": {"everything__*": "allow"}}
    )
    policy = policy_file(tmp_path, {"sampling": False})
    sample = calling("everything__trigger-sampling-request", {"prompt": "say hi", "maxTokens": 20})
    with OPENAI.fake(sample * 2) as server:
        done = run(policy, server, isolated_home, tmp_path, "sample")
        control = run(tmp_path / ABSENT, server, isolated_home, tmp_path, "sample")
        offered = offered_tool_names(server.requests[0])
        offered_without = offered_tool_names(server.requests[2])
    assert "everything__trigger-sampling-request" not in offered
    (refused,) = results(done)
    assert refused.startswith("ERROR: there is no tool named 'everything__trigger-sampling-request'")
    assert "everything__trigger-sampling-request" in offered_without
    (asked,) = results(control)
    assert "refused: nobody can approve it here" in asked  # the user's "sampling": true applied
    listed = under_policy(policy, isolated_home, tmp_path, "mcp", "list", "-v")
    assert f"policy: sampling is turned off by your organisation's policy ({policy})" in listed.stdout


# --- autopilot and the network ------------------------------------------------------------------


def test_autopilot_and_the_network_flags_are_refused(isolated_home: Path, tmp_path: Path) -> None:
    policy = policy_file(
        tmp_path, {"autopilot": False, "allowedHosts": ["pypi.org"], "contact": "Ask #platform-help"}
    )
    by = f"refused by your organisation's policy ({policy}) — Ask #platform-help"
    with OPENAI.fake([Reply(text="no")]) as server:
        autopilot = run(policy, server, isolated_home, tmp_path, "go", "--autopilot")
        network = run(
            policy, server, isolated_home, tmp_path, "go", "--allow-network", "--allow-host", "evil.com"
        )
        host = under_policy(
            policy, isolated_home, tmp_path, "sandbox", "--allow-host", "evil.com", "--", "true"
        )
    assert autopilot.returncode == 2
    assert autopilot.stderr == f"levelcode: --autopilot: {by}\n"
    assert network.returncode == 2
    assert network.stderr == (
        f"levelcode: --allow-network, --allow-host evil.com: {by} (allowed hosts: pypi.org)\n"
    )
    assert host.returncode == 2
    assert f"--allow-host evil.com: {by} (allowed hosts: pypi.org)" in host.stderr


def test_the_users_autopilot_setting_is_ignored_and_said(isolated_home: Path, tmp_path: Path) -> None:
    """The user's `"autopilot": true` would run a safe command unasked; under the policy, the
    headless run refuses it, and says why at the start."""
    write_settings(isolated_home, {"autopilot": True})
    made = tmp_path / "made"
    policy = policy_file(tmp_path, {"autopilot": False})
    command = calling("run_command", {"command": f"mkdir {made}"})
    with OPENAI.fake(command * 2) as server:
        done = run(policy, server, isolated_home, tmp_path, "go")
        assert not made.exists(), done.stdout
        control = run(tmp_path / ABSENT, server, isolated_home, tmp_path, "go")
    assert f"autopilot: ignored by your organisation's policy ({policy}): it turns autopilot off" in notices(
        done
    )
    assert made.exists(), control.stdout


# --- a policy file that cannot be used -----------------------------------------------------------


# a policy file's text → what the first line says is wrong with it, after the file's name
UNUSABLE = {
    '{\n  "deniedMcpServers": [{"name": "x"}\n}\n': ":3:1: not valid JSON: expected ','",
    "": ": not valid JSON: the file is empty (to have no policy, remove the file)",
    " \n\t\n": ": not valid JSON: the file is empty (to have no policy, remove the file)",
    "null": ": expected a JSON object, not null (to have no policy, remove the file)",
    "[]": ": expected a JSON object, not a list (to have no policy, remove the file)",
    "0": ": expected a JSON object, not a number (to have no policy, remove the file)",
}


@pytest.mark.parametrize("text", UNUSABLE, ids=["bad JSON", "empty", "blank", "null", "[]", "0"])
def test_a_broken_policy_file_fails_closed_and_says_where(
    isolated_home: Path, tmp_path: Path, text: str
) -> None:
    marker = tmp_path / "marker"
    write_settings(isolated_home, {"mcpServers": {"mine": hostile_entry(marker)}})
    policy = policy_file(tmp_path, text)
    listed = under_policy(policy, isolated_home, tmp_path, "mcp", "list", "-v")
    with OPENAI.fake([Reply(text="no"), Reply(text="fine")]) as server:
        autopilot = run(policy, server, isolated_home, tmp_path, "go", "--autopilot")
        done = run(policy, server, isolated_home, tmp_path, "go")
    assert not marker.exists(), words(listed) + words(done)
    first = listed.stderr.splitlines()[0] if listed.stderr else ""
    assert first.startswith(f"levelcode: {policy}{UNUSABLE[text]}"), words(listed)
    assert first.endswith(
        "your organisation's policy fails closed until this is fixed: no MCP server starts, and "
        "autopilot, network access and sampling are off (tell whoever manages LevelCode here)"
    )
    assert listed.returncode == 1
    assert "mine · blocked by your organisation's policy" in listed.stdout
    assert autopilot.returncode == 2
    assert done.returncode == 0, done.stderr
    assert f"config problem: {policy}{UNUSABLE[text]}" in notices(done)
    assert "MCP server 'mine' was not started: blocked by your organisation's policy" in notices(done)


def test_an_empty_object_is_a_policy_that_restricts_nothing(isolated_home: Path, tmp_path: Path) -> None:
    """The positive control: `{}` (a policy with no rules) lets the same server run."""
    marker = tmp_path / "marker"
    write_settings(isolated_home, {"mcpServers": {"mine": hostile_entry(marker)}})
    done = under_policy(policy_file(tmp_path, "{}"), isolated_home, tmp_path, "mcp", "list")
    assert marker.exists(), words(done)
    assert "fails closed" not in words(done)


def test_an_unknown_key_fails_closed_too(isolated_home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    write_settings(isolated_home, {"mcpServers": {"mine": hostile_entry(marker)}})
    policy = policy_file(tmp_path, {"deniedMcpServer": [{"name": "other"}]})
    done = under_policy(policy, isolated_home, tmp_path, "mcp", "list", "-v")
    assert not marker.exists(), words(done)
    assert done.stderr.startswith(f"levelcode: {policy}: 1 mistake(s), listed below;")
    assert f"problem: {policy}: deniedMcpServer: unknown key" in done.stdout


def test_a_policy_file_anyone_can_change_is_warned_about(isolated_home: Path, tmp_path: Path) -> None:
    policy = policy_file(tmp_path, {"sampling": False})
    policy.chmod(0o666)
    done = under_policy(policy, isolated_home, tmp_path, "mcp", "list", "-v")
    assert f"problem: {policy}: owner and mode: warning: the file is writable by everyone" in done.stdout
    assert done.returncode == 0


@pytest.mark.sandbox
def test_the_users_network_setting_is_ignored_when_the_policy_turns_the_network_off(
    isolated_home: Path, tmp_path: Path
) -> None:
    """`"sandbox": {"network": true}` in the user's settings would let a sandboxed command reach a
    listener on this machine; under `"allowNetwork": false` it does not."""
    write_settings(isolated_home, {"sandbox": {"network": True}})
    policy = policy_file(tmp_path, {"allowNetwork": False})
    with Listener() as listening:
        curl = ["sandbox", "--", "curl", "-sS", "-m", "5", "-d", "x=1", listening.url]
        done = under_policy(policy, isolated_home, tmp_path, *curl)
        assert done.returncode != 0, words(done)
        assert listening.received() == b""
        control = under_policy(tmp_path / ABSENT, isolated_home, tmp_path, *curl)
        assert control.returncode == 0, words(control)
        assert b"x=1" in listening.received()


def test_mcp_login_refuses_a_server_the_policy_blocks(isolated_home: Path, tmp_path: Path) -> None:
    with listener() as seen:
        write_settings(isolated_home, {"mcpServers": {"remote": {"url": seen.url + "/mcp"}}})
        policy = policy_file(tmp_path, {"allowedMcpServers": [{"url": "https://*.example.com/*"}]})
        done = under_policy(policy, isolated_home, tmp_path, "mcp", "login", "remote", "--no-browser")
        assert seen.seen == [], words(done)
    assert done.returncode == 2
    assert (
        f"'remote' is blocked by your organisation's policy ({policy}): it matches no entry of" in done.stderr
    )
