"""The forwarder as a real process, outside any sandbox (what it does with its command does not
depend on where it runs). Load-bearing direction: its command dies when it does (the
parent-death signal bwrap's --die-with-parent used to give), and it ends the way its command did,
so a server killed by a signal is reported as such. The second corpus: a command that cannot be
started is named, with the private /tmp as the reason when its path is under /tmp."""

from __future__ import annotations

import signal
import subprocess
import sys

from levelcode.sandbox.egress import FORWARDER_SCRIPT

WAIT = 20.0
PDEATHSIG = (
    "import ctypes, signal; n = ctypes.c_int(); "
    "ctypes.CDLL(None).prctl(2, ctypes.byref(n), 0, 0, 0); print(n.value)"
)


def forwarder(*command: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-I", "-S", str(FORWARDER_SCRIPT), "/nonexistent/proxy.sock", "0", "--", *command]
    return subprocess.run(argv, capture_output=True, text=True, timeout=WAIT, check=False)


def test_its_command_carries_the_parent_death_signal() -> None:
    done = forwarder(sys.executable, "-c", PDEATHSIG)
    assert done.stdout == f"{int(signal.SIGKILL)}\n"


def test_it_ends_as_its_command_did() -> None:
    assert forwarder(sys.executable, "-c", "raise SystemExit(7)").returncode == 7
    killed = forwarder(sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)")
    assert killed.returncode == -signal.SIGTERM


def test_a_command_that_cannot_start_is_named() -> None:
    done = forwarder("/tmp/levelcode-no-such-program")
    assert done.returncode == 127
    assert done.stderr == (
        "[sandbox] could not start /tmp/levelcode-no-such-program: No such file or directory (the "
        "sandbox's /tmp is private: a program under /tmp is not in there)\n"
    )
    assert forwarder("no-such-program-anywhere").stderr.endswith("No such file or directory\n")
