"""One plan per start: a headless `levelcode run`, an interactive session's start and
`levelcode mcp list` each select their servers once (every server through the one selection,
config/server_selection.py, once) and parse the profiles once, and resolve the launch of the one
server that starts once. Load-bearing direction: a second selection or a second parse of the
profiles — the early start choosing beside the configuration, a command building its own start —
fails here. The second corpus: what is counted once still happens (the profile's server runs, the
other is listed, left out)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest

from levelcode.cli.main import main
from levelcode.cli.start.light_start import light_start
from levelcode.mcp.config import server_selection
from levelcode.mcp.launch import resolve
from levelcode.mcp.live.early_start import cores_for_servers
from levelcode.policy import profiles
from tests.fakes.scripted_server import Reply
from tests.mcp.test_work_done_once import counting
from tests.providers.support import OPENAI
from tests.support.cli import KEY_VARIABLES, provider_flags
from tests.support.servers import FAULT_SERVER


@pytest.fixture
def counted(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, list[object]]:
    """Settings with two servers of the user's and a profile of one; the selection, the profiles'
    parse and the launches' resolving counted where their callers find them."""
    entry = {"command": sys.executable, "args": [str(FAULT_SERVER)]}
    doc = {"mcpServers": {"fault": entry, "other": entry}, "profiles": {"work": {"servers": ["fault"]}}}
    (isolated_home / "settings.json").write_text(json.dumps(doc))
    monkeypatch.setenv(KEY_VARIABLES[OPENAI.name], "test-key")
    calls: dict[str, list[object]] = {"select": [], "profiles": [], "resolve": []}
    counting(monkeypatch, server_selection, "_selected", calls["select"])  # once per server
    counting(monkeypatch, profiles, "Profile", calls["profiles"])  # once per profile parsed
    counting(monkeypatch, resolve, "resolve_launch", calls["resolve"])
    return calls


def _once(calls: dict[str, list[object]]) -> None:
    assert [spec.name for spec in calls["select"]] == ["fault", "other"]  # type: ignore[attr-defined]
    assert calls["profiles"] == ["work"]
    assert [spec.name for spec in calls["resolve"]] == ["fault"]  # type: ignore[attr-defined]


def test_a_headless_run_plans_its_servers_once(
    counted: dict[str, list[object]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with OPENAI.fake([Reply(text="Done.")]) as server:
        flags = provider_flags(OPENAI.name, server.base_url, OPENAI.model)
        status = main(["run", "-C", str(tmp_path), "--profile", "work", *flags, "say done"])
    assert status == 0, capsys.readouterr().err
    assert "Done." in capsys.readouterr().out
    _once(counted)


async def test_an_interactive_start_plans_its_servers_once(
    counted: dict[str, list[object]], tmp_path: Path
) -> None:
    args = argparse.Namespace(
        workspace=str(tmp_path), provider=OPENAI.name, model=OPENAI.model, profile="work"
    )
    light = light_start(args, spawn_at_most=cores_for_servers())  # as the REPL starts
    start = light.with_runtime()
    try:
        await start.mcp.start()
        assert start.mcp.hub.connection("fault") is not None
        assert start.mcp.config.server("other").disabled  # type: ignore[union-attr]
        _once(counted)
    finally:
        await start.mcp.close()


def test_mcp_list_plans_its_servers_once(
    counted: dict[str, list[object]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mcp", "list", "-C", str(tmp_path), "--profile", "work", "--json"]) == 0
    listed = {server["name"]: server for server in json.loads(capsys.readouterr().out)["servers"]}
    assert set(listed) == {"fault", "other"}
    _once(counted)
