"""Driving `levelcode` in a real terminal: tmux on a private socket, send-keys and capture-pane."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence


class Terminal:
    def __init__(self, name: str, width: int = 110, height: int = 45) -> None:
        if shutil.which("tmux") is None:
            raise RuntimeError("tmux is not installed (.ci/run installs it)")
        # the pid keeps two suites running at once on one machine from sharing a tmux server
        self.socket = f"levelcode-test-{os.getpid()}-{name}"
        self.name = name
        self.width, self.height = width, height

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20, check=False
        )
        return done.stdout

    def start(
        self,
        argv: Sequence[str],
        env: Mapping[str, str],
        cwd: str | None = None,
        options: Sequence[tuple[str, str]] = (),
    ) -> None:
        """Run `argv` in a new session; `options` are global tmux options set before it starts."""
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        run = f"env -i {exports} {shlex.join(argv)}"
        command = f"cd {shlex.quote(cwd or '.')} && {run}; echo '[exited '$?']'; sleep 60"
        setup = [arg for key, value in options for arg in ("set-option", "-g", key, value, ";")]
        if setup:
            setup = ["start-server", ";", *setup]
        self.tmux(
            *setup,
            "new-session",
            "-d",
            "-s",
            self.name,
            "-x",
            str(self.width),
            "-y",
            str(self.height),
            command,
        )

    def buffers(self) -> str:
        """Every tmux paste buffer's content: where an OSC 52 clipboard write lands."""
        names = self.tmux("list-buffers", "-F", "#{buffer_name}").split()
        return "\n".join(self.tmux("show-buffer", "-b", name) for name in names)

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

    def wait_for_prompt(self, within: float = 20.0) -> str:
        """Wait until the REPL's `> ` prompt is the last line: keys sent before it is reading can be
        swallowed by the terminal's line discipline (a Ctrl-D then never reaches the REPL)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            screen = self.screen()
            lines = [line for line in screen.splitlines() if line.strip()]
            if lines and lines[-1].rstrip() == ">":
                return screen
            time.sleep(0.05)
        raise AssertionError(f"the prompt did not appear; the terminal shows:\n{self.screen()}")

    def close(self) -> None:
        self.tmux("kill-server")
