"""Which `${VAR}` references a repository's server receives, and what its launch card says of them.
Load-bearing direction: every field in which LevelCode fills in `${VAR}` from the user's
environment when the server starts — env values (PATH included), header values,
`oauth.clientSecret`, and what config loading left as a reference in the command, an argument
or the url (a secret's: config/launch_expansion.py; unexpanded here) — gets the card's
"will receive your VAR" line, and, when VAR holds LevelCode's own provider key, the line that it
will not receive it. Which fields those are is not taken from the list under test: the real
transport code is asked (a reference it expands to a withheld provider key stops the start).
The second corpus: fields that reach the server as written (cwd, an env key, `oauth.clientId`)
get no such line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.core.errors import ServerStartError
from levelcode.mcp.config.specs import ServerSpec
from levelcode.mcp.config.tiers import parse_workspace_file
from levelcode.mcp.launch.connect_options import ConnectOptions
from levelcode.mcp.launch.gate import LaunchGate
from levelcode.mcp.launch.trust_store import TrustStore
from levelcode.mcp.live.transports import transport_plan

VARIABLE = "DEPLOY_TOKEN"
VALUE = "s3cret-value"
URL = "https://mcp.example/mcp"
REFERENCE = "${" + VARIABLE + "}"

EXPANDED = {  # entry → the field its line names
    "an env value": ({"command": "srv", "env": {"TOKEN": REFERENCE}}, "env TOKEN"),
    "the PATH in env": ({"command": "srv", "env": {"PATH": f"{REFERENCE}:/usr/bin"}}, "env PATH"),
    "a header value": (
        {"url": URL, "headers": {"Authorization": f"Bearer {REFERENCE}"}},
        "header Authorization",
    ),
    "a second header": ({"url": URL, "headers": {"X-A": "a", "X-Key": REFERENCE}}, "header X-Key"),
    "oauth.clientSecret": (
        {"url": URL, "oauth": {"clientId": "levelcode", "clientSecret": REFERENCE}},
        "oauth clientSecret",
    ),
    "the command": ({"command": REFERENCE}, "command"),
    "an argument": ({"command": "srv", "args": ["--token", REFERENCE]}, "arg 2"),
    "the url": ({"url": f"https://mcp.example/{REFERENCE}/mcp"}, "url"),
}
AS_WRITTEN = {
    "the cwd": {"command": "srv", "cwd": REFERENCE},
    "an env key": {"command": "srv", "env": {REFERENCE: "x"}},
    "oauth.clientId": {"url": URL, "oauth": {"clientId": REFERENCE}},
}
CORPUS = {name: entry for name, (entry, _label) in EXPANDED.items()} | AS_WRITTEN


def repository_spec(workspace: Path, entry: dict[str, object]) -> ServerSpec:
    config = parse_workspace_file({"mcpServers": {"srv": entry}}, file=str(workspace / ".mcp.json"))
    assert not config.problems, config.problems
    (spec,) = config.servers
    return spec


def expanded_by_the_transport(spec: ServerSpec, workspace: Path) -> bool:
    """Whether connecting fills in the reference: VAR holds a provider key here, so a field that
    is expanded stops the start with an error naming it."""
    options = ConnectOptions(workspace=workspace, provider_key_values=frozenset({VALUE}))
    try:
        transport_plan(spec, options, {VARIABLE: VALUE, "PATH": "/usr/bin:/bin"})
    except ServerStartError as exc:
        return REFERENCE in str(exc)
    return False


def card_summary(spec: ServerSpec, workspace: Path, provider_keys: frozenset[str] = frozenset()) -> str:
    gate = LaunchGate(workspace, TrustStore())
    review = gate.review(spec)
    assert review is not None
    return "\n".join(gate.card(review, provider_keys=provider_keys).summary)


@pytest.mark.parametrize("name", CORPUS)
def test_a_field_gets_the_line_exactly_when_its_reference_is_filled_in(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(VARIABLE, "a value of the user's")
    spec = repository_spec(tmp_path, CORPUS[name])
    expanded = expanded_by_the_transport(spec, tmp_path)
    assert expanded == (name in EXPANDED)  # the corpus is what the transport really does
    summary = card_summary(spec, tmp_path)
    if expanded:
        assert f"will receive your {VARIABLE} ({EXPANDED[name][1]})" in summary
    else:
        assert VARIABLE not in summary


@pytest.mark.parametrize("name", EXPANDED)
def test_a_provider_key_asked_for_in_any_expanded_field_is_named_as_kept_back(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(VARIABLE, VALUE)
    spec = repository_spec(tmp_path, EXPANDED[name][0])
    summary = card_summary(spec, tmp_path, provider_keys=frozenset({VALUE}))
    label = EXPANDED[name][1]
    assert f"{label} asks for {VARIABLE}, LevelCode's own provider key" in summary
    assert "will receive" not in summary
