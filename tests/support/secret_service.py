"""A real system keyring for the tests that opt in: GNOME Keyring's Secret Service on a private
D-Bus session bus, with a login keyring unlocked by a throwaway password, under a temporary home.
Nothing of the developer's own session bus or keyring is reached.

Skipped where gnome-keyring-daemon or dbus-daemon is missing, unless LEVELCODE_TEST_REQUIRE_KEYRING
is set (CI installs both and sets it: there the tests must run).

keyring's Secret Service backend opens a D-Bus connection for each call and never closes it: they
are freed by the cyclic garbage collector, each with a ResourceWarning, which the test settings
turn into an error in whichever later test the collector happens to run. So the service is ready
only once its login keyring exists (asked over a connection that is closed again, so that keyring
never meets a missing default collection, which it would try to create through a prompt nobody
answers), and what the backend leaked is collected, quietly, when the service ends.
"""

from __future__ import annotations

import contextlib
import gc
import os
import shutil
import subprocess
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.missing import missing

SECRET_SERVICE_BACKEND = "keyring.backends.SecretService.Keyring"
# A session bus that starts no service on demand: the system's own session config would start a
# second gnome-keyring-daemon (its org.freedesktop.secrets.service, without --unlock, so with no
# login keyring) for the first call made before ours owned the name, and that one would win it.
BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""
_READY_SECONDS = 20.0


@dataclass(frozen=True)
class SecretService:
    env: dict[str, str]  # what a process needs to use it (bus address, keyring backend)

    def backend(self) -> object:
        from keyring.backends import SecretService as secret_service

        return secret_service.Keyring()


def require_tools() -> None:
    absent = [tool for tool in ("dbus-daemon", "gnome-keyring-daemon") if shutil.which(tool) is None]
    if not absent:
        return
    missing(" and ".join(absent), "apt-get install dbus gnome-keyring", also="LEVELCODE_TEST_REQUIRE_KEYRING")


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
    config = home / "session-bus.conf"
    config.write_text(BUS_CONFIG)
    bus = subprocess.Popen(
        ["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address=1"],
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
        _collect_leaked_connections()
        for process in (daemon, bus):
            if process is not None:
                process.terminate()
                process.wait(timeout=10)
        if bus.stdout is not None:
            bus.stdout.close()


def _collect_leaked_connections() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()


def _login_keyring_unlocked() -> bool:
    """Whether the default (login) collection exists and is unlocked, asked over a connection that
    is closed again; never creates it."""
    import secretstorage

    with contextlib.closing(secretstorage.dbus_init()) as connection:
        try:
            return not secretstorage.get_collection_by_alias(connection, "default").is_locked()
        except secretstorage.ItemNotFoundException:
            return False


def _wait_until_ready(service: SecretService) -> None:
    """Bounded: the login keyring exists and is unlocked, and the daemon answers a write and a read
    through keyring, or the fixture fails."""
    deadline = time.monotonic() + _READY_SECONDS
    previous = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = service.env["DBUS_SESSION_BUS_ADDRESS"]
    try:
        with warnings.catch_warnings():  # keyring's leaked connections, collected below
            warnings.simplefilter("ignore", ResourceWarning)
            while (why := _not_ready(service)) is not None:
                if time.monotonic() > deadline:
                    pytest.fail(f"the Secret Service did not come up within {_READY_SECONDS:g} s: {why}")
                time.sleep(0.05)
    finally:
        _collect_leaked_connections()
        if previous is None:
            os.environ.pop("DBUS_SESSION_BUS_ADDRESS", None)
        else:
            os.environ["DBUS_SESSION_BUS_ADDRESS"] = previous


def _not_ready(service: SecretService) -> str | None:
    """Why the service cannot be used yet; None once a write and a read through keyring work."""
    try:
        if not _login_keyring_unlocked():
            return "the login keyring is not there, or locked"
        backend = service.backend()
        backend.set_password("levelcode-test", "ready", "yes")  # type: ignore[attr-defined]
        if backend.get_password("levelcode-test", "ready") != "yes":  # type: ignore[attr-defined]
            return "a secret written was not read back"
        backend.delete_password("levelcode-test", "ready")  # type: ignore[attr-defined]
    except Exception as exc:  # not up yet: a refused connection, a missing service, a locked keyring
        return f"{type(exc).__name__}: {exc}"
    return None
