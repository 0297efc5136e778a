"""Which kept sign-in one server's requests use: the record at the issuer it used last, or the one
at the issuer it names now; a record kept before sign-ins were keyed by issuer (one per server and
URL) only at the issuer it names itself — never presented to another.

I/O through the credential store (store.py). Never logs or shows a record (it holds tokens).
"""

from __future__ import annotations

from levelcode.mcp.http.oauth.store import CredentialStore, Record, issuer_key


class KeptSignIns:
    def __init__(self, store: CredentialStore, base: str) -> None:
        """`base`: the server's store_key (its name and URL)."""
        self.store, self.base = store, base

    def key(self, issuer: str) -> str:
        return issuer_key(self.base, issuer)

    def current(self) -> Record | None:
        """The sign-in the server used last, wherever its issuer is."""
        issuer = self.store.current_issuer(self.base)
        if issuer is not None:
            return self.store.load(self.key(issuer))
        return self.store.load(self.base)  # kept before sign-ins were keyed by issuer

    def at_issuer(self, issuer: str) -> Record | None:
        """The sign-in kept at `issuer` (a server that moved back finds its old one again)."""
        kept = self.store.load(self.key(issuer))
        if kept is not None:
            return kept
        legacy = self.store.load(self.base)
        return legacy if legacy is not None and legacy.get("issuer") == issuer else None

    def keep(self, record: Record) -> None:
        """Kept at its own issuer, which the server uses from now on."""
        issuer = str(record.get("issuer"))
        self.store.save(self.key(issuer), record)
        self.store.set_current_issuer(self.base, issuer)
