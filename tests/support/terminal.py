"""Driving `levelcode` in a real terminal: tmux on a private socket, send-keys and capture-pane."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence


class Terminal:
    def __init__(self, name: str, width: int = 110, height: int = 45) -> None:
        if shutil.which("tmux") is None:
            raise RuntimeError("tmux is not installed (.ci/run installs it)")
        self.socket = f"levelcode-test-{name}"
        self.name = name
        self.width, self.height = width, height

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20, check=False
        )
        return done.stdout

    def start(self, argv: Sequence[str], env: Mapping[str, str], cwd: str | None = None) -> None:
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        run = f"env -i {exports} {shlex.join(argv)}"
        command = f"cd {shlex.quote(cwd or '.')} && {run}; echo '[exited '$?']'; sleep 60"
        self.tmux(
            "new-session", "-d", "-s", self.name, "-x", str(self.width), "-y", str(self.height), command
        )

    def send(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", self.name, "-l", text)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", self.name)

    def visible_screen(self) -> str:
        """Only what is on the terminal now, without the scrollback."""
        return self.tmux("capture-pane", "-p", "-t", self.name)

    def wait_for(self, text: str, within: float = 20.0) -> str:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.05)
        raise AssertionError(f"{text!r} did not appear on the terminal; it shows:\n{self.screen()}")

    def close(self) -> None:
        self.tmux("kill-server")
