"""Where sign-ins are kept. Load-bearing direction: with a working keyring the secret record is
in the keyring and not in the file (which holds only the index); without one it is in a file
readable by the user alone, in a folder closed to others; logout removes it from both; and a
sign-in is never found under another server name or URL."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail

from levelcode.mcp.http.oauth.store import KEYRING_SERVICE, STORE_FILE, CredentialStore, store_key

RECORD = {"tokens": {"access_token": "at-SECRET", "refresh_token": "rt-SECRET"}}


class MemoryKeyring(KeyringBackend):
    """A working system keyring, as far as the keyring package can tell."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.items.pop((service, username), None)


@pytest.fixture
def system_keyring() -> Iterator[MemoryKeyring]:
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(fail.Keyring())


def test_with_a_keyring_the_secrets_live_there_and_the_file_only_indexes(
    tmp_path: Path, system_keyring: MemoryKeyring
) -> None:
    store = CredentialStore(tmp_path / "state")
    key = store_key("gh", "https://mcp.example.com/mcp")
    assert store.save(key, RECORD) == "keyring"
    assert "at-SECRET" in system_keyring.items[(KEYRING_SERVICE, key)]
    assert "SECRET" not in (tmp_path / "state" / STORE_FILE).read_text()
    assert store.load(key) == RECORD
    assert store.delete(key)
    assert system_keyring.items == {}
    assert store.load(key) is None


def test_without_a_keyring_a_file_only_the_user_can_read(tmp_path: Path) -> None:
    store = CredentialStore(tmp_path / "state")
    key = store_key("gh", "https://mcp.example.com/mcp")
    assert store.save(key, RECORD) == "file"
    path = tmp_path / "state" / STORE_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) & 0o077 == 0
    assert CredentialStore(tmp_path / "state").load(key) == RECORD


def test_a_sign_in_belongs_to_its_name_and_url(tmp_path: Path) -> None:
    store = CredentialStore(tmp_path)
    store.save(store_key("gh", "https://mcp.example.com/mcp"), RECORD)
    assert store.load(store_key("gh", "https://evil.example.com/mcp")) is None
    assert store.load(store_key("other", "https://mcp.example.com/mcp")) is None
    assert store.keys_for("gh") == [store_key("gh", "https://mcp.example.com/mcp")]


def test_levelcode_keyring_off_never_uses_one(
    tmp_path: Path, system_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEVELCODE_KEYRING", "off")
    assert CredentialStore(tmp_path).save("k", RECORD) == "file"
    assert system_keyring.items == {}
