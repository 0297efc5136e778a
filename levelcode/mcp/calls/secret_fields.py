"""Whether a field a server asks the user to fill looks like it wants a secret: a password, a
token, an API or private key, a one-time code, a card number.

Pure: reads the field's name, title, description and schema hints. The answer decides that the
form warns before it is filled and never shows what is typed (masked while typed, hidden when
reviewed). A server that wants a secret and words its field to dodge this is not stopped here —
the warning helps the user with the honest-looking request, the masking keeps the typed secret
off the screen, scrollback and recordings either way.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping

PURE = True

# Words that name a secret wherever they stand: in the field's name, title or description.
_SECRET_WORDS = frozenset(
    {
        *("password", "passwords", "passwd", "passphrase", "passcode", "secret", "secrets"),
        *("credential", "credentials", "token", "apikey", "apikeys", "privatekey", "accesskey"),
        *("secretkey", "otp", "totp", "hotp", "2fa", "mfa", "cvv", "cvc", "cvv2", "ssn"),
        *("mnemonic", "bearer", "jwt"),
    }
)
# Shorter names for one, trusted only in the field's own name or title ("pin" the version in a
# description is not a PIN).
_NAME_ONLY_WORDS = frozenset({"pwd", "pass", "pin", "pw", "pat"})
_SECRET_PAIRS = frozenset(
    {
        ("api", "key"),
        ("access", "key"),
        ("private", "key"),
        ("secret", "key"),
        ("signing", "key"),
        ("ssh", "key"),
        ("license", "key"),
        ("encryption", "key"),
        ("client", "key"),
        ("master", "key"),
        ("auth", "code"),
        ("authorization", "code"),
        ("verification", "code"),
        ("security", "code"),
        ("recovery", "code"),
        ("backup", "code"),
        ("one", "time"),
        ("seed", "phrase"),
        ("recovery", "phrase"),
        ("card", "number"),
        ("credit", "card"),
        ("social", "security"),
    }
)
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+[A-Za-z]*")
_TEXT_KINDS = ("string", "number", "integer")  # what is typed; a choice or a yes/no is not hidden


def looks_like_secret(name: str, kind: str, prop: Mapping[str, object]) -> bool:
    """True when the field is typed in and its name, title, description or schema says secret."""
    if kind not in _TEXT_KINDS:
        return False
    if prop.get("format") == "password" or prop.get("writeOnly") is True:
        return True
    title, description = prop.get("title"), prop.get("description")
    named = _words(name) + (_words(title) if isinstance(title, str) else [])
    described = _words(description) if isinstance(description, str) else []
    return _names_secret(named, _NAME_ONLY_WORDS | _SECRET_WORDS) or _names_secret(described, _SECRET_WORDS)


def _words(text: str) -> list[str]:
    """`newAPIKey_2` → new, api, key, 2: camelCase, snake_case, kebab-case and prose alike."""
    return [word.lower() for word in _WORD.findall(text[:500])]


def _names_secret(words: list[str], singles: frozenset[str]) -> bool:
    if any(word in singles for word in words):
        return True
    return any(pair in _SECRET_PAIRS for pair in itertools.pairwise(words))
