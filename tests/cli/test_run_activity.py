"""`levelcode run` and the live activity line: on a terminal (stderr) it says the model is being
waited for, with the key that interrupts; piped, not one byte of it; under NO_COLOR, no colour
code anywhere, the line still there. Load-bearing direction: piped output holds no spinner, no
cursor or erase sequence and no escape at all (the terminal run, beside it, shows that the same
run would draw the line, so the check can fail)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from levelcode.ui.activity_line import ASCII_FRAMES, FRAMES
from tests.fakes.scripted_server import Reply
from tests.providers.support import OPENAI
from tests.support.cli import LEVELCODE, provider_env, provider_flags
from tests.support.pty_run import run_in_pty

THINKING = 1.0  # seconds the fake model takes before its first token: the line shows after 0.25
# SGR sequences that set a colour (foreground, background, bright, 256 and true colour)
COLOUR = re.compile(r"\x1b\[(?:[0-9]*;)*(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9]*)*m")


def run_argv(base_url: str, workspace: Path) -> list[str]:
    return [str(LEVELCODE), "run", "-C", str(workspace), *provider_flags("openai", base_url, OPENAI.model)]


def test_piped_run_writes_no_activity_line(isolated_home: Path, tmp_path: Path) -> None:
    with OPENAI.fake([Reply(text="The answer.", delay=THINKING)]) as server:
        done = subprocess.run(
            [*run_argv(server.base_url, tmp_path), "think"],
            capture_output=True,
            text=True,
            env=provider_env(isolated_home, "openai", TERM="xterm-256color"),
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The answer.\n"
    output = done.stdout + done.stderr
    assert "waiting for the model" not in output
    assert "Ctrl-C" not in output
    assert not set(FRAMES + ASCII_FRAMES.replace("-", "")) & set(output)
    assert "\x1b" not in output


def test_run_on_a_terminal_shows_the_line_and_no_color_drops_every_colour(
    isolated_home: Path, tmp_path: Path
) -> None:
    shown: dict[str, str] = {}
    for name, extra in (("colour", {}), ("no_color", {"NO_COLOR": "1"})):
        with OPENAI.fake([Reply(text="The answer.", delay=THINKING)]) as server:
            env = provider_env(isolated_home, "openai", TERM="xterm-256color", **extra)
            done = run_in_pty([*run_argv(server.base_url, tmp_path), "think"], env, cwd=tmp_path, within=120)
        assert done.returncode == 0, done.text
        shown[name] = done.text
    for text in shown.values():
        assert "waiting for the model · 0s · Ctrl-C to interrupt" in text
        assert "The answer." in text
    assert COLOUR.search(shown["colour"])  # the same run with colours: the check can fail
    assert not COLOUR.search(shown["no_color"]), repr(shown["no_color"])
