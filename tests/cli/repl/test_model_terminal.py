"""`/model` in a real terminal (tmux): the list with the model in use marked (the fake API is a
custom base URL, so the list is the models it serves), a switch to a model
LevelCode does not know (its window said, the unknown price warned about), then to a known one;
the next request goes to it, `/cost` prices it, and the session file records it, so a headless
`run -c` goes on with it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from levelcode.agent.session_store import workspace_folder
from tests.fakes.scripted_server import Reply
from tests.providers.support import ANTHROPIC
from tests.support.cli import LEVELCODE, provider_env, provider_flags
from tests.support.terminal import Terminal


def test_model_lists_switches_and_is_saved(terminal: Terminal, isolated_home: Path, tmp_path: Path) -> None:
    steps = [Reply(text="From haiku."), Reply(text="Still haiku.")]
    with ANTHROPIC.fake(steps) as server:
        env = provider_env(isolated_home, "anthropic", TERM="xterm-256color")
        argv = [str(LEVELCODE), *provider_flags("anthropic", server.base_url, ANTHROPIC.model)]
        terminal.start(argv, env, cwd=str(tmp_path))
        terminal.wait_for("/help for commands")
        terminal.type("/model")
        terminal.send("Enter")
        screen = terminal.wait_for(f"Models served by {server.base_url}")
        assert "* claude-sonnet-5-5" in screen
        assert "  claude-haiku-5-5" in screen
        terminal.wait_for_prompt()
        terminal.type("/model fake-claude")
        terminal.send("Enter")
        screen = terminal.wait_for("LevelCode does not know fake-claude")
        assert "Model: anthropic/fake-claude from the next request on · window 128,000 tokens" in screen
        terminal.wait_for_prompt()
        terminal.type("/model claude-haiku-5-5")
        terminal.send("Enter")
        terminal.wait_for(
            "Model: anthropic/claude-haiku-5-5 from the next request on · window 200,000 tokens"
        )
        terminal.wait_for_prompt()
        terminal.type("hi")
        terminal.send("Enter")
        terminal.wait_for("From haiku.")
        assert server.requests[-1].body["model"] == "claude-haiku-5-5"
        terminal.wait_for_prompt()
        terminal.type("/cost")
        terminal.send("Enter")
        screen = terminal.wait_for("  session ")
        assert "Tokens and cost (claude-haiku-5-5)" in screen
        assert "input $0.10" in screen
        terminal.send("C-d")
        terminal.wait_for("[exited 0]")
        [saved] = workspace_folder(tmp_path.resolve(), isolated_home / "state" / "sessions").glob("*.jsonl")
        marks = [json.loads(line)["mark"] for line in saved.read_text().splitlines() if '"mark"' in line]
        assert marks[-1]["model"] == "claude-haiku-5-5"
        command = [
            str(LEVELCODE),
            "run",
            "-c",
            "--provider",
            "anthropic",
            "--base-url",
            server.base_url,
            "again",
        ]
        done = subprocess.run(
            command,
            cwd=tmp_path,
            env=provider_env(isolated_home, "anthropic"),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert server.requests[-1].body["model"] == "claude-haiku-5-5"
