"""Which files a remote server's sign-in may read. Load-bearing direction (must refuse): a
repository's server (workspace tier) that names a key or token file in its `oauth` entry does not
start — its sign-in would send what the file holds (signatures made with the user's key, the
workload's token) to an authorization server the repository chose. Must pass: the same entry in
the user's own settings, and a repository entry whose secrets are ${VAR} references (shown on its
approval card like any other reference)."""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.core.errors import ServerStartError
from levelcode.mcp.config.environment import NOTHING_WITHHELD
from levelcode.mcp.config.oauth_entry import OAuthEntry, parse_oauth_entry
from levelcode.mcp.config.specs import HttpServerSpec, Provenance
from levelcode.mcp.http.oauth.entry_secrets import oauth_secrets, read_secret_file
from levelcode.mcp.http.oauth.metadata import OAuthProblem
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.live.transports import transport_plan

FILE_ENTRIES = [
    {
        "clientId": "c",
        "grant": "client_credentials",
        "clientAuth": "private_key_jwt",
        "privateKeyFile": "~/.ssh/id_ecdsa",
    },
    {
        "grant": "workload_identity",
        "workloadTokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token",
    },
    {
        "grant": "identity_assertion",
        "identityAssertion": {"tokenEndpoint": "https://idp.example.com/t", "idTokenFile": "~/.cache/sso/id"},
    },
]


def entry(value: dict[str, object]) -> OAuthEntry:
    parsed = parse_oauth_entry(value, lambda key, why: pytest.fail(f"{key}: {why}"))
    assert parsed is not None
    return parsed


def spec(tier: str, value: dict[str, object]) -> HttpServerSpec:
    return HttpServerSpec(
        "remote", "https://mcp.example.com/mcp", Provenance(tier, "/repo/.mcp.json"), oauth=entry(value)
    )  # type: ignore[arg-type]


@pytest.mark.parametrize("value", FILE_ENTRIES)
def test_a_repository_server_naming_a_file_does_not_start(value: dict[str, object], tmp_path: Path) -> None:
    with pytest.raises(ServerStartError) as refused:
        transport_plan(spec("workspace", value), ConnectOptions(workspace=tmp_path), {})
    assert "honoured only in your own settings" in str(refused.value)


@pytest.mark.parametrize("value", FILE_ENTRIES)
def test_the_same_entry_in_the_users_settings_starts(value: dict[str, object], tmp_path: Path) -> None:
    transport_plan(spec("user", value), ConnectOptions(workspace=tmp_path), {})


def test_a_repository_server_may_name_references(tmp_path: Path) -> None:
    value = {"grant": "workload_identity", "workloadToken": "${CI_TOKEN}"}
    transport_plan(spec("workspace", value), ConnectOptions(workspace=tmp_path), {"CI_TOKEN": "t"})
    secrets = oauth_secrets(
        entry(value), {"CI_TOKEN": " t \n"}, server="remote", tier="workspace", withheld=NOTHING_WITHHELD
    )
    assert secrets.workload_token == " t \n"
    assert "t" not in repr(secrets).replace("OAuthSecrets", "").replace("client_secret", "")


def test_a_secret_file_is_read_bounded_and_named_in_errors(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("  abc.def.ghi\n")
    assert read_secret_file(str(token), "the token file") == b"abc.def.ghi"
    (tmp_path / "big").write_bytes(b"x" * (64 * 1024 + 1))
    with pytest.raises(OAuthProblem, match="larger than"):
        read_secret_file(str(tmp_path / "big"), "the token file")
    with pytest.raises(OAuthProblem, match=r"the token file .*missing cannot be read"):
        read_secret_file(str(tmp_path / "missing"), "the token file")
