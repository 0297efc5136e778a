"""Driving `levelcode` in a real terminal: tmux on a private socket, send-keys and capture-pane."""

from __future__ import annotations

import os
import shlex
import subprocess
import time
from collections.abc import Mapping, Sequence

from tests.support.missing import program

CARD_READY = "press a key:"  # a card's prompt line once it takes keys (ui/key_prompt.py)
CONFIRM_READY = "press Ctrl-Y to confirm:"  # the same for its confirmation step


class Terminal:
    def __init__(self, name: str, width: int = 110, height: int = 45) -> None:
        program("tmux", "apt-get install tmux (.ci/run installs it)")
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

    def record(self, path: str) -> None:
        """Append every byte the program writes to the terminal to `path`, from now on: what the
        terminal was sent, before it interpreted any of it."""
        self.tmux("pipe-pane", "-o", "-t", self.name, f"cat >> {shlex.quote(path)}")

    def buffers(self) -> str:
        """Every tmux paste buffer's content: where an OSC 52 clipboard write lands."""
        names = self.tmux("list-buffers", "-F", "#{buffer_name}").split()
        return "\n".join(self.tmux("show-buffer", "-b", name) for name in names)

    def send(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", self.name, "-l", text)

    def paste(self, text: str) -> None:
        """Paste `text` as a terminal does: in bracketed-paste markers when the program asked."""
        self.tmux("set-buffer", "-b", "pasted", "--", text)
        self.tmux("paste-buffer", "-p", "-d", "-b", "pasted", "-t", self.name)

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

    def wait_for_prompt(self, within: float = 20.0, typed: str | None = "") -> str:
        """Wait until the REPL's `> ` prompt is the last line (holding `typed`; any text when
        None): keys sent before it is reading can be swallowed by the terminal's line discipline."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            screen = self.screen()
            lines = [line for line in screen.splitlines() if line.strip()]
            last = lines[-1].rstrip() if lines else ""
            if last == f"> {typed}".rstrip() or (typed is None and last.startswith(">")):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"the prompt did not appear; the terminal shows:\n{self.screen()}")

    def wait_for_keys(self, ready: str = CARD_READY, within: float = 20.0) -> str:
        """Wait until a card (or, with `CONFIRM_READY`, its confirmation step) takes keys: its
        armed prompt line is the last line. A key sent before then is ignored as typing."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            screen = self.screen()
            lines = [line for line in screen.splitlines() if line.strip()]
            if lines and lines[-1].rstrip().endswith(ready):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"no card took keys ({ready!r}); the terminal shows:\n{self.screen()}")

    def press(self, key: str, ready: str = CARD_READY, within: float = 20.0) -> None:
        """Send `key` to the card that takes keys now, and wait until it has taken it (its prompt
        line no longer waits), so that a wait for the next card cannot see this one."""
        self.send(key)
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            lines = [line for line in self.screen().splitlines() if line.strip()]
            if not lines or not lines[-1].rstrip().endswith(ready):
                return
            time.sleep(0.05)
        raise AssertionError(f"the card did not take {key!r}; the terminal shows:\n{self.screen()}")

    def answer(self, key: str, *, confirm: bool = False) -> str:
        """Answer the card on screen with `key` once it takes keys; `confirm`: then confirm with
        Ctrl-Y (a launch approval, an "always", a run outside the sandbox). The card's screen."""
        screen = self.wait_for_keys()
        self.press(key)
        if confirm:
            self.wait_for_keys(CONFIRM_READY)
            self.press("C-y", CONFIRM_READY)
        return screen

    def close(self) -> None:
        self.tmux("kill-server")


def shows_wrapped(screen: str, text: str) -> bool:
    """Whether `screen` shows `text` once its line breaks are undone: a card wraps its lines
    anywhere, inside a long path too (a worker's longer tmp_path moves the break), so spaces and
    breaks are compared away on both sides."""
    return "".join(text.split()) in "".join(screen.split())
