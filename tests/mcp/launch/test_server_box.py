"""Which tier may set what of a server's sandbox, and what that decides. Load-bearing direction: a
repository's entry can never widen a sandbox — no folder it names is written, it never gets the
network nor a host it lists — and once it asks for the sandbox it is never offered or started
unconfined, whatever the trust store says; a malformed `sandbox` in your own entry still
confines; changing the key changes the launch fingerprint (approved again). The second corpus:
your own entry applies as written (its host list too), an entry without the key keeps the
fingerprint it had before the key existed, and the card of a repository's stdio server offers
"approve, sandboxed" first."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.core.approvals import ApprovalRequest, decide_or_deny
from levelcode.mcp.config.sandbox_entry import (
    REPOSITORY_HOSTS_IGNORED,
    REPOSITORY_NETWORK_IGNORED,
    REPOSITORY_WRITE_IGNORED,
    SandboxRequest,
)
from levelcode.mcp.config.specs import HttpServerSpec, StdioServerSpec, launch_encoding
from levelcode.mcp.config.tiers import parse_user_settings, parse_workspace_file
from levelcode.mcp.launch.launch_card import launch_card
from levelcode.mcp.launch.server_box import (
    SANDBOXED_ANSWER,
    ServerBox,
    box_folders,
    launch_answers,
    sandbox_choice_of,
    server_box,
)
from levelcode.mcp.launch.trust import LaunchReview, TrustCheck, launch_fingerprint
from tests.support.approvers import ScriptedApprover

USER_FILE = "/home/u/.config/levelcode/settings.json"
REPO_FILE = "/repo/.mcp.json"


def user_entry(sandbox: object) -> tuple[StdioServerSpec, list[str]]:
    loaded = parse_user_settings(
        {"mcpServers": {"s": {"command": "srv", "sandbox": sandbox}}}, file=USER_FILE
    )
    spec = loaded.servers[0]
    assert isinstance(spec, StdioServerSpec)
    return spec, [f"{p.key}: {p.message}" for p in loaded.problems]


def repo_entry(sandbox: object) -> tuple[StdioServerSpec, list[str]]:
    loaded = parse_workspace_file(
        {"mcpServers": {"s": {"command": "srv", "sandbox": sandbox}}}, file=REPO_FILE
    )
    spec = loaded.servers[0]
    assert isinstance(spec, StdioServerSpec)
    return spec, [f"{p.key}: {p.message}" for p in loaded.problems]


# --- refused: a repository can only ask ----------------------------------------------------------

WIDENING = [
    {"write": ["/home/u"], "network": True},
    {"write": ["."]},
    {"write": ["${workspaceFolder}"], "network": False},
    {"network": True},
    {"network": ["api.example.com", "127.0.0.1:22"]},
]


@pytest.mark.parametrize("sandbox", WIDENING)
def test_a_repository_cannot_widen_its_sandbox(sandbox: dict[str, Any]) -> None:
    spec, problems = repo_entry(sandbox)
    assert spec.sandbox == SandboxRequest()  # asked for the sandbox; nothing beyond its own folder
    if sandbox.get("write"):
        assert f"mcpServers.s.sandbox.write: {REPOSITORY_WRITE_IGNORED}" in problems
    if sandbox.get("network") is True:
        assert f"mcpServers.s.sandbox.network: {REPOSITORY_NETWORK_IGNORED}" in problems
    if isinstance(sandbox.get("network"), list):
        assert f"mcpServers.s.sandbox.network: {REPOSITORY_HOSTS_IGNORED}" in problems
    for approved in (None, "own", "workspace"):
        box = server_box(spec, approved)  # type: ignore[arg-type]
        assert box is not None
        assert box.write == ()
        assert box.network is False
        assert box.hosts == ()


@given(
    st.one_of(
        st.booleans(),
        st.none(),
        st.fixed_dictionaries(
            {},
            optional={
                "write": st.lists(st.text(min_size=1, max_size=8), max_size=3) | st.integers(),
                "network": st.booleans() | st.text(max_size=3) | st.lists(st.text(max_size=12), max_size=3),
            },
        ),
    ),
    st.sampled_from([None, "own", "workspace"]),
)
def test_property_a_repository_box_never_has_the_network_or_its_own_folders(
    sandbox: object, approved: Any
) -> None:
    spec, _ = repo_entry(sandbox)
    box = server_box(spec, approved)
    if box is not None:
        assert box.network is False
        assert box.write == ()
        assert box.hosts == ()
    asked = sandbox not in (None, False)
    assert (box is not None) == (asked or approved is not None)


def test_a_repository_that_asks_is_never_offered_or_started_unconfined() -> None:
    spec, _ = repo_entry(True)
    assert server_box(spec, None) == ServerBox(by="entry")  # even with an unconfined approval
    choices = [answer.choice for answer in launch_answers(spec, sandbox_missing=False)]
    assert choices == ["sandboxed", "sandboxed_workspace"]


async def test_an_answer_the_card_does_not_offer_is_a_denial() -> None:
    spec, _ = repo_entry(True)
    card = launch_card(LaunchReview(spec, None, TrustCheck("never_approved")), Path("/repo"))
    assert await decide_or_deny(ScriptedApprover("once"), card) == "deny"  # unconfined: not offered
    assert await decide_or_deny(ScriptedApprover("always"), card) == "deny"
    assert await decide_or_deny(ScriptedApprover("sandboxed"), card) == "sandboxed"
    plain = ApprovalRequest("command", "Run")
    assert await decide_or_deny(ScriptedApprover("sandboxed"), plain) == "deny"


@pytest.mark.parametrize("sandbox", ["yes", 3, [], {"write": "x"}, {"network": "on"}, {"writes": ["/x"]}])
def test_a_malformed_key_in_your_entry_still_confines(sandbox: object) -> None:
    spec, problems = user_entry(sandbox)
    assert spec.sandbox is not None
    assert spec.sandbox.network is False
    assert problems  # and says what was wrong


def test_changing_the_key_changes_the_fingerprint() -> None:
    plain, _ = repo_entry(None)
    asked, _ = repo_entry(True)
    assert launch_fingerprint(plain) != launch_fingerprint(asked)
    mine, _ = user_entry({"write": ["/a"]})
    other, _ = user_entry({"write": ["/b"]})
    online, _ = user_entry({"write": ["/a"], "network": True})
    assert len({launch_encoding(mine), launch_encoding(other), launch_encoding(online)}) == 3


# --- allowed: your own entry, old approvals, the card ---------------------------------------------


def test_your_own_entry_applies_as_written() -> None:
    spec, problems = user_entry({"write": ["~/notes", "${workspaceFolder}/out", "/data"], "network": True})
    assert problems == []
    box = server_box(spec)
    assert box == ServerBox(("~/notes", "${workspaceFolder}/out", "/data"), False, True, "entry")
    folders = box_folders(box, Path("/ws"), Path("/home/u"))
    assert folders == (Path("/home/u/notes"), Path("/ws/out"), Path("/data"))
    assert server_box(user_entry(None)[0]) is None
    assert server_box(user_entry(False)[0]) is None


def test_your_own_entry_lists_hosts_and_a_bad_one_is_reported() -> None:
    spec, problems = user_entry({"network": ["API.example.com", "registry.local:4873", "https://x.com", 7]})
    assert spec.sandbox == SandboxRequest(hosts=("api.example.com", "registry.local:4873"))
    assert len(problems) == 2
    assert all(p.startswith("mcpServers.s.sandbox.network: ") and p.endswith("ignored") for p in problems)
    box = server_box(spec)
    assert box is not None
    assert (box.network, box.hosts) == (False, ("api.example.com", "registry.local:4873"))


@pytest.mark.parametrize(("command", "registry"), [("npx", "npm"), ("/usr/bin/uvx", "python"), ("srv", None)])
def test_the_launcher_names_the_registry_a_sandboxed_server_reaches(
    command: str, registry: str | None
) -> None:
    for tier, parse in (("user", parse_user_settings), ("workspace", parse_workspace_file)):
        entry = {"command": command, "args": ["-y", "pkg"], "sandbox": True}
        spec = parse({"mcpServers": {"s": entry}}, file=REPO_FILE).servers[0]
        box = server_box(spec, "own")
        assert box is not None, tier
        assert box.registry == registry


def test_hosts_change_the_fingerprint_and_no_hosts_keep_the_old_one() -> None:
    plain, _ = user_entry({"write": ["/a"]})
    listed, _ = user_entry({"write": ["/a"], "network": ["api.example.com"]})
    assert launch_encoding(plain) != launch_encoding(listed)
    assert '"hosts"' not in launch_encoding(plain)  # as before hosts existed
    asked, _ = repo_entry({"network": ["api.example.com"]})
    assert launch_encoding(asked) == launch_encoding(repo_entry(True)[0])


def test_an_entry_without_the_key_keeps_the_fingerprint_it_had_before() -> None:
    spec, _ = repo_entry(None)
    old = json.dumps(
        ["levelcode-launch/1", "stdio", "srv", [], [], None], ensure_ascii=False, separators=(",", ":")
    )
    assert launch_encoding(spec) == old
    assert launch_fingerprint(spec) == hashlib.sha256(old.encode()).hexdigest()


def test_the_card_offers_approve_sandboxed_first() -> None:
    spec, _ = repo_entry(None)
    card = launch_card(LaunchReview(spec, None, TrustCheck("never_approved")), Path("/repo"))
    assert [(a.key, a.choice) for a in card.answers] == [
        ("s", "sandboxed"),
        ("w", "sandboxed_workspace"),
        ("y", "once"),
    ]
    assert card.answers[0].label == SANDBOXED_ANSWER
    assert any(line.startswith("sandbox: ") for line in card.body)
    assert card.note is None
    assert [sandbox_choice_of(a.choice) for a in card.answers] == ["own", "workspace", None]


def test_without_a_sandbox_the_card_says_approving_runs_it_unconfined() -> None:
    spec, _ = repo_entry(None)
    review = LaunchReview(spec, None, TrustCheck("never_approved"))
    card = launch_card(review, Path("/repo"), sandbox_missing="bwrap was not found on PATH")
    assert card.answers == ()  # the plain approve / deny
    assert (
        card.note == "there is no sandbox here (bwrap was not found on PATH), so approving runs it unconfined"
    )


def test_a_remote_server_has_no_sandbox() -> None:
    loaded = parse_workspace_file(
        {"mcpServers": {"r": {"url": "https://example.com/mcp", "sandbox": True}}}, file=REPO_FILE
    )
    spec = loaded.servers[0]
    assert isinstance(spec, HttpServerSpec)
    assert "only a stdio server (a local process) can run in the sandbox; ignored" in str(loaded.problems[0])
    assert server_box(spec, "own") is None
    assert launch_card(LaunchReview(spec, None, TrustCheck("never_approved")), Path("/repo")).answers == ()


def test_a_user_server_ignores_a_stray_choice() -> None:
    spec, _ = user_entry(None)
    assert server_box(dataclasses.replace(spec), "own") is None  # only a repository's approval counts
