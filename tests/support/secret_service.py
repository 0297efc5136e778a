"""A real system keyring for the tests that opt in: GNOME Keyring's Secret Service on a private
D-Bus session bus, with a login keyring unlocked by a throwaway password, under a temporary home.
Nothing of the developer's own session bus or keyring is reached.

Skipped where gnome-keyring-daemon or dbus-daemon is missing, unless LEVELCODE_TEST_REQUIRE_KEYRING
is set (CI installs both and sets it: there the tests must run).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

SECRET_SERVICE_BACKEND = "keyring.backends.SecretService.Keyring"
_READY_SECONDS = 20.0


@dataclass(frozen=True)
class SecretService:
    env: dict[str, str]  # what a process needs to use it (bus address, keyring backend)

    def backend(self) -> object:
        from keyring.backends import SecretService as secret_service

        return secret_service.Keyring()


def require_tools() -> None:
    missing = [tool for tool in ("dbus-daemon", "gnome-keyring-daemon") if shutil.which(tool) is None]
    if not missing:
        return
    reason = f"{' and '.join(missing)} not installed (apt-get install dbus gnome-keyring)"
    if os.environ.get("LEVELCODE_TEST_REQUIRE_KEYRING"):
        pytest.fail(reason)
    pytest.skip(reason)


@contextmanager
def secret_service(home: Path) -> Iterator[SecretService]:
    require_tools()
    home.mkdir(parents=True, exist_ok=True)
    base = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
    }
    base["XDG_RUNTIME_DIR"] = str(home / "run")
    Path(base["XDG_RUNTIME_DIR"]).mkdir(mode=0o700, exist_ok=True)
    bus = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1", "--address=unix:tmpdir=/tmp"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=base,
    )
    daemon: subprocess.Popen[str] | None = None
    try:
        assert bus.stdout is not None
        address = bus.stdout.readline().strip()
        env = {**base, "DBUS_SESSION_BUS_ADDRESS": address}
        daemon = subprocess.Popen(
            ["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        assert daemon.stdin is not None
        daemon.stdin.write("throwaway-test-password")
        daemon.stdin.close()
        service = SecretService(
            {"DBUS_SESSION_BUS_ADDRESS": address, "PYTHON_KEYRING_BACKEND": SECRET_SERVICE_BACKEND}
        )
        _wait_until_ready(service)
        yield service
    finally:
        for process in (daemon, bus):
            if process is not None:
                process.terminate()
                process.wait(timeout=10)
        if bus.stdout is not None:
            bus.stdout.close()


def _wait_until_ready(service: SecretService) -> None:
    """Bounded: the daemon answers a write and a read on the bus, or the fixture fails."""
    deadline = time.monotonic() + _READY_SECONDS
    previous = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = service.env["DBUS_SESSION_BUS_ADDRESS"]
    try:
        while True:
            try:
                backend = service.backend()
                backend.set_password("levelcode-test", "ready", "yes")  # type: ignore[attr-defined]
                if backend.get_password("levelcode-test", "ready") == "yes":  # type: ignore[attr-defined]
                    backend.delete_password("levelcode-test", "ready")  # type: ignore[attr-defined]
                    return
            except Exception as exc:
                if time.monotonic() > deadline:
                    pytest.fail(f"the Secret Service did not come up within {_READY_SECONDS:g} s: {exc}")
            time.sleep(0.05)
    finally:
        if previous is None:
            os.environ.pop("DBUS_SESSION_BUS_ADDRESS", None)
        else:
            os.environ["DBUS_SESSION_BUS_ADDRESS"] = previous
