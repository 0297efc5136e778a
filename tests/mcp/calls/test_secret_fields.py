"""Which fields a server's form asks a secret in. Load-bearing direction: a field that names a
password, token, key, one-time code or card number — in its name, title, description or schema
hints, in any casing or word style — is marked secret (warned about, never shown). The second
corpus: ordinary fields that only share letters with those words (keyboard, monkey, max tokens,
zip code, bypass) are not, nor is any choice or yes/no field."""

from __future__ import annotations

import pytest

from levelcode.mcp.calls.elicitation import FormRequest, parse_elicitation, shown_value
from levelcode.mcp.calls.secret_fields import looks_like_secret

SECRET = [
    ("password", {}),
    ("newPassword", {}),
    ("PASSWORD_CONFIRM", {}),
    ("db_pass", {}),
    ("dbPwd", {}),
    ("apiKey", {}),
    ("api_key", {}),
    ("APIKey", {}),
    ("value", {"title": "API key"}),
    ("value", {"title": "GitHub token"}),
    ("githubToken", {}),
    ("GITHUB_TOKEN", {}),
    ("access_token", {}),
    ("value", {"title": "Personal access token"}),
    ("pat", {}),
    ("client_secret", {}),
    ("clientSecret", {}),
    ("passphrase", {}),
    ("value", {"title": "SSH private key"}),
    ("privateKey", {}),
    ("aws_secret_access_key", {}),
    ("pin", {"type": "integer"}),
    ("value", {"title": "PIN"}),
    ("value", {"title": "One-time code"}),
    ("value", {"title": "2FA code"}),
    ("otp", {}),
    ("value", {"title": "Verification code"}),
    ("value", {"title": "Credit card number"}),
    ("cvv", {"type": "number"}),
    ("credentials", {}),
    ("recovery", {"title": "Recovery phrase"}),
    ("value", {"format": "password"}),
    ("value", {"writeOnly": True}),
    ("verification", {"description": "Enter your account password to continue"}),
    ("value", {"description": "The bearer token your service issued"}),
]

ORDINARY = [
    ("name", {}),
    ("email", {"format": "email"}),
    ("key", {"title": "Key", "description": "the lookup key to store the note under"}),
    ("sort_key", {}),
    ("keyboard_layout", {}),
    ("monkey", {}),
    ("keyword", {}),
    ("max_tokens", {"type": "integer", "title": "Max tokens"}),
    ("tokenizer", {}),
    ("zip_code", {}),
    ("country", {"title": "Country code"}),
    ("bypass_cache", {"type": "boolean"}),
    ("passenger_count", {"type": "integer"}),
    ("compass", {}),
    ("spinner", {}),
    ("version", {"description": "pin the version here, or leave empty for the latest"}),
    ("password_policy", {"type": "string", "enum": ["strict", "lax"]}),  # a choice is not typed
    ("remember_password", {"type": "boolean"}),
]


@pytest.mark.parametrize(("name", "prop"), SECRET, ids=[f"{n}-{p}" for n, p in SECRET])
def test_fields_asking_for_a_secret_are_marked(name: str, prop: dict[str, object]) -> None:
    schema = {"type": "object", "properties": {name: {"type": "string", **prop}}}
    form = parse_elicitation({"message": "m", "requestedSchema": schema})
    assert isinstance(form, FormRequest)
    assert form.secret_fields == form.fields
    assert shown_value(form.fields[0], "hunter2") == "(hidden)"


@pytest.mark.parametrize(("name", "prop"), ORDINARY, ids=[f"{n}-{p}" for n, p in ORDINARY])
def test_ordinary_fields_are_not(name: str, prop: dict[str, object]) -> None:
    kind = "boolean" if prop.get("type") == "boolean" else "enum" if "enum" in prop else "string"
    assert not looks_like_secret(name, kind, prop)
    schema = {"type": "object", "properties": {name: {"type": "string", **prop}}}
    form = parse_elicitation({"message": "m", "requestedSchema": schema})
    assert isinstance(form, FormRequest)
    assert form.secret_fields == ()


def test_a_description_naming_a_secret_errs_towards_hiding() -> None:
    """A field merely described near the word is hidden too: a masked path costs little, a shown
    password a lot."""
    assert looks_like_secret("path", "string", {"description": "where to write; never a secret store"})


def test_a_secret_fields_default_is_kept_and_only_hidden() -> None:
    schema = {"type": "object", "properties": {"api_token": {"type": "string", "default": "t-0"}}}
    form = parse_elicitation({"message": "m", "requestedSchema": schema})
    assert isinstance(form, FormRequest)
    assert form.fields[0].secret
    assert form.fields[0].default == "t-0"  # pre-filled, only hidden
    assert shown_value(form.fields[0], None) == "(empty)"
