"""The `oauth` keys for sign-ins without a user. Load-bearing direction: a secret (a workload
token, an ID token, the IdP's client secret) is accepted only as a ${VAR} reference — a literal
secret written into settings is refused and never kept; a grant that lacks what it needs falls
back to the browser sign-in with the reason; and an entry without the new keys keeps its launch
fingerprint (approvals given before stay valid)."""

from __future__ import annotations

import pytest

from levelcode.mcp.config.oauth_entry import OAuthEntry, parse_oauth_entry
from levelcode.mcp.config.oauth_grants import GrantSettings, IdentityAssertion


def parsed(value: dict[str, object]) -> tuple[OAuthEntry | None, list[str]]:
    problems: list[str] = []
    entry = parse_oauth_entry(value, lambda key, why: problems.append(f"{key}: {why}"))
    return entry, problems


MUST_REFUSE_SECRETS = [
    {"workloadToken": "eyJhbGciOiJFUzI1NiJ9.e30.sig"},
    {"workloadToken": "prefix-${TOKEN}"},
    {"workloadToken": "${TOKEN}${OTHER}"},
    {"identityAssertion": {"tokenEndpoint": "https://idp.example.com/t", "idToken": "eyJraWQ.x.y"}},
    {
        "identityAssertion": {
            "tokenEndpoint": "https://idp.example.com/t",
            "idToken": "${ID}",
            "clientSecret": "s3cret",
        }
    },
]
MUST_PASS_SECRETS = [
    {"grant": "workload_identity", "workloadToken": "${WORKLOAD_TOKEN}"},
    {"grant": "workload_identity", "workloadTokenFile": "/var/run/secrets/tokens/mcp"},
    {
        "grant": "identity_assertion",
        "identityAssertion": {
            "tokenEndpoint": "https://idp.example.com/t",
            "idToken": "${ID}",
            "clientSecret": "${S}",
        },
    },
]


@pytest.mark.parametrize("value", MUST_REFUSE_SECRETS)
def test_a_literal_secret_is_refused_and_never_kept(value: dict[str, object]) -> None:
    entry, problems = parsed(value)
    assert entry is not None
    assert any("${VAR} reference" in p for p in problems), problems
    assert "eyJ" not in repr(entry.grants.encoded())
    assert "s3cret" not in repr(entry.grants.encoded())


@pytest.mark.parametrize("value", MUST_PASS_SECRETS)
def test_references_and_files_are_kept(value: dict[str, object]) -> None:
    entry, problems = parsed(value)
    assert problems == []
    assert entry is not None
    assert entry.grants.grant == value["grant"]


def test_client_credentials_with_private_key_jwt() -> None:
    entry, problems = parsed(
        {
            "clientId": "ci-bot",
            "grant": "client_credentials",
            "clientAuth": "private_key_jwt",
            "privateKeyFile": "~/.config/acme/key.pem",
            "dpop": True,
        }
    )
    assert problems == []
    assert entry is not None
    assert entry.grants == GrantSettings(
        grant="client_credentials",
        client_auth="private_key_jwt",
        private_key_file="~/.config/acme/key.pem",
        dpop=True,
    )
    assert entry.grants.without_user
    assert entry.grants.file_references() == [("privateKeyFile", "~/.config/acme/key.pem")]


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ({"grant": "client_credentials"}, '"clientId"'),
        ({"grant": "client_credentials", "clientId": "x"}, '"clientSecret" or "privateKeyFile"'),
        ({"grant": "workload_identity"}, '"workloadToken" or "workloadTokenFile"'),
        ({"grant": "identity_assertion"}, '"identityAssertion"'),
        ({"clientAuth": "private_key_jwt"}, '"privateKeyFile"'),
    ],
)
def test_a_grant_missing_what_it_needs_falls_back_to_the_browser(value: dict[str, object], why: str) -> None:
    entry, problems = parsed(value)
    assert entry is not None
    assert entry.grants.grant == "authorization_code"
    assert any(why in p and "browser sign-in" in p for p in problems), problems


def test_unknown_values_are_reported() -> None:
    _entry, problems = parsed({"grant": "password", "clientAuth": "tls", "dpop": "yes"})
    assert [p.split(":")[0] for p in problems] == ["oauth.grant", "oauth.clientAuth", "oauth.dpop"]


def test_an_entry_without_the_new_keys_encodes_as_before() -> None:
    entry, _ = parsed({"clientId": "abc", "scopes": ["read"]})
    assert entry is not None
    assert entry.encoded() == [True, "abc", None, ["read"], None, None]
    with_grant, _ = parsed({"clientId": "abc", "clientSecret": "${S}", "grant": "client_credentials"})
    assert with_grant is not None
    assert len(with_grant.encoded()) == 7  # the grant settings are part of what is approved


def test_identity_assertion_needs_a_token_endpoint_and_an_id_token() -> None:
    entry, problems = parsed(
        {"grant": "identity_assertion", "identityAssertion": {"tokenEndpoint": "https://idp.example.com/t"}}
    )
    assert entry is not None
    assert entry.grants.identity_assertion is None
    assert any("idToken" in p for p in problems)
    good, _ = parsed(
        {
            "grant": "identity_assertion",
            "identityAssertion": {"tokenEndpoint": "https://idp.example.com/t", "idTokenFile": "~/id"},
        }
    )
    assert good is not None
    assert good.grants.identity_assertion == IdentityAssertion(
        "https://idp.example.com/t", id_token_file="~/id"
    )
