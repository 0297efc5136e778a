"""The credential store on a real system keyring: GNOME Keyring's Secret Service on a private
D-Bus session (tests/support/secret_service.py). Load-bearing direction: with the keyring working,
every secret record (tokens, DPoP key, registered client) lives in it and the file under the state
dir holds only the index; delete removes the item from the keyring itself; with the keyring gone
(daemon stopped) a new sign-in falls back to the 0600 file, as stated."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail

from levelcode.mcp.http.oauth.store import KEYRING_SERVICE, STORE_FILE, CredentialStore, issuer_key, store_key
from tests.support.secret_service import SecretService, secret_service

# keyring's Secret Service backend leaks a D-Bus connection per call (tests/support/secret_service.py
# collects them when the service ends); one the garbage collector frees mid-test is not this test's.
pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")

RECORD = {
    "tokens": {"access_token": "at-SECRET", "refresh_token": "rt-SECRET"},
    "dpop_key": "-----BEGIN PRIVATE",
}
KEY = issuer_key(store_key("gh", "https://mcp.example.com/mcp"), "https://auth.example.com")


@pytest.fixture
def real_keyring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SecretService]:
    with secret_service(tmp_path / "keyring-home") as service:
        for name, value in service.env.items():
            monkeypatch.setenv(name, value)
        keyring.set_keyring(service.backend())  # type: ignore[arg-type]
        try:
            yield service
        finally:
            keyring.set_keyring(fail.Keyring())


def test_the_secrets_live_in_the_secret_service_and_the_file_only_indexes(
    tmp_path: Path, real_keyring: SecretService
) -> None:
    store = CredentialStore(tmp_path / "state")
    assert store.save(KEY, RECORD) == "keyring"
    in_keyring = real_keyring.backend().get_password(KEYRING_SERVICE, KEY)  # type: ignore[attr-defined]
    assert "at-SECRET" in in_keyring
    index = (tmp_path / "state" / STORE_FILE).read_text()
    assert "SECRET" not in index
    assert "PRIVATE" not in index
    assert CredentialStore(tmp_path / "state").load(KEY) == RECORD  # another process's view
    assert store.delete(KEY)
    assert real_keyring.backend().get_password(KEYRING_SERVICE, KEY) is None  # type: ignore[attr-defined]
    assert store.load(KEY) is None


def test_without_the_keyring_the_0600_file_is_the_fallback(tmp_path: Path) -> None:
    with secret_service(tmp_path / "keyring-home") as service, pytest.MonkeyPatch.context() as env:
        for name, value in service.env.items():
            env.setenv(name, value)
        keyring.set_keyring(service.backend())  # type: ignore[arg-type]
        try:
            assert CredentialStore(tmp_path / "state").save(KEY, RECORD) == "keyring"
        finally:
            keyring.set_keyring(fail.Keyring())
    # the daemon and its bus are gone now: what keyring finds is the failing backend
    store = CredentialStore(tmp_path / "state")
    other = issuer_key(store_key("other", "https://mcp.example.com/mcp"), "https://auth.example.com")
    assert store.save(other, RECORD) == "file"
    path = tmp_path / "state" / STORE_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert store.load(other) == RECORD
