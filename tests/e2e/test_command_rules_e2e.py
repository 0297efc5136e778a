"""Saved command rules end to end: real `levelcode` processes, the sandbox, the fake model API.
Load-bearing direction: a repository's `.levelcode/settings.json` cannot allow a command (the key
is ignored and said to be), and a user's rule for `touch made-by-rule` does not let through
`touch made-by-rule; touch pwned`. The second corpus: the user's rule lets a headless run (no
autopilot) run exactly that command; and in a real terminal (tmux) the card's "save" answer,
confirmed with Ctrl-Y, writes the rule, so the next session runs the command without a card."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.scripted_server import Reply, ToolCall
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, provider_env, provider_flags, write_settings
from tests.support.sandbox import host_folder
from tests.support.terminal import CONFIRM_READY, Terminal

pytestmark = pytest.mark.sandbox


@pytest.fixture
def workspace() -> Iterator[Path]:
    with host_folder() as folder:  # outside /tmp: the sandbox's /tmp is its own
        yield folder


def _run(home: Path, workspace: Path, base_url: str, prompt: str) -> subprocess.CompletedProcess[str]:
    command = [str(LEVELCODE), "run", "-C", str(workspace), *provider_flags("openai", base_url, OPENAI.model)]
    return subprocess.run(
        [*command, prompt],
        env=provider_env(home, "openai"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _calls(*commands: str) -> list[Reply]:
    return [Reply(tool_calls=(ToolCall("run_command", {"command": command}),)) for command in commands]


def test_a_repository_cannot_allow_a_command(isolated_home: Path, workspace: Path) -> None:
    (workspace / ".levelcode").mkdir()
    (workspace / ".levelcode" / "settings.json").write_text(
        json.dumps({"commandRules": {"allow": ["touch pwned"]}})
    )
    with OPENAI.fake([*_calls("touch pwned"), Reply(text="Done.")]) as server:
        done = _run(isolated_home, workspace, server.base_url, "go")
        result = server.requests[-1].body["messages"][-1]["content"]
    assert not (workspace / "pwned").exists()
    assert "not run: nobody can approve in this session" in result
    assert "commandRules: ignored: only your user settings may set this" in done.stderr


def test_a_user_rule_runs_exactly_its_command_and_nothing_chained(
    isolated_home: Path, workspace: Path
) -> None:
    write_settings(isolated_home, {"commandRules": {"allow": ["touch made-by-rule"]}})
    steps = [*_calls("touch made-by-rule", "touch made-by-rule; touch pwned"), Reply(text="Done.")]
    with OPENAI.fake(steps) as server:
        done = _run(isolated_home, workspace, server.base_url, "go")
        results = [m["content"] for m in server.requests[-1].body["messages"] if m["role"] == "tool"]
    assert done.returncode == 0, done.stderr
    assert (workspace / "made-by-rule").exists()
    assert not (workspace / "pwned").exists()
    assert "not run: nobody can approve" not in results[0]
    assert "not run: nobody can approve in this session" in results[1]


def test_the_card_saves_a_rule_and_the_next_session_runs_it_without_a_card(
    terminal: Terminal, isolated_home: Path, workspace: Path
) -> None:
    steps = [*_calls("touch made-by-rule"), Reply(text="Made it.")]
    with OPENAI.fake(steps) as server:
        env = provider_env(isolated_home, "openai", TERM="xterm-256color")
        argv = [str(LEVELCODE), *provider_flags("openai", server.base_url, OPENAI.model)]
        terminal.start(argv, env, cwd=str(workspace))
        terminal.wait_for("/help for commands")
        terminal.type("make it")
        terminal.send("Enter")
        screen = terminal.wait_for_keys()
        assert (
            "[s] always allow `touch made-by-rule` in every session: save it as a rule in your settings"
            in screen
        )
        terminal.press("s")
        screen = terminal.wait_for_keys(CONFIRM_READY)
        assert "saved as a rule in your settings" in screen
        terminal.press("C-y", CONFIRM_READY)
        terminal.wait_for("Made it.")
        assert (workspace / "made-by-rule").exists()
        settings = json.loads((isolated_home / "settings.json").read_text())
        assert settings == {"commandRules": {"allow": ["touch made-by-rule"]}}
        terminal.wait_for_prompt()
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
        (workspace / "made-by-rule").unlink()
        server.add(*_calls("touch made-by-rule"), Reply(text="Made it again."))
        terminal.tmux("kill-session", "-t", terminal.name)
        terminal.start(argv, env, cwd=str(workspace))
        terminal.wait_for("/help for commands")
        terminal.type("make it again")
        terminal.send("Enter")
        screen = terminal.wait_for("Made it again.")
        assert "Run a command?" not in screen
        assert (workspace / "made-by-rule").exists()
