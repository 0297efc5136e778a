"""The organisation's policy file, parsed. Load-bearing direction: a file with any mistake in it
comes out *closed* (every restriction at its tightest), never half-read — a misspelt rule would be
a rule not kept; and a file that says nothing restricts nothing. Reading: once per process, a
missing file is no policy, an unreadable one closed, and one others could change is warned about."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from levelcode.platform.managed_file import ownership_problem, read_managed_policy
from levelcode.platform.paths import managed_settings_path
from levelcode.platform.settings_files import load_settings
from levelcode.policy.managed_policy import (
    NO_POLICY,
    ManagedPolicy,
    ServerMatch,
    host_permitted,
    parse_managed_policy,
)
from tests.support.settings import settings_of

FILE = "/etc/levelcode/managed-settings.json"

# Each must close the policy: a mistake that a lenient reader would skip, loosening the policy.
MUST_CLOSE = [
    {"deniedMcpServer": [{"name": "evil"}]},  # misspelt key
    {"deniedMcpServers": {"name": "evil"}},  # not a list
    {"deniedMcpServers": [{"nam": "evil"}]},  # misspelt match key
    {"deniedMcpServers": [{}]},  # an entry that would match everything or nothing
    {"deniedMcpServers": [{"name": ""}]},
    {"deniedMcpServers": [{"url": "evil.example.com"}]},  # no scheme
    {"deniedMcpServers": [{"url": "https://evil example.com/"}]},
    {"deniedMcpServers": [{"fingerprint": "abc"}]},
    {"allowedMcpServers": "github"},
    {"mcpSandbox": "always"},
    {"mcpSandbox": True},
    {"mcpToolPolicy": {"github__delete_repo": "allow"}},  # the organisation denies or asks
    {"mcpToolPolicy": {"delete_repo": "deny"}},  # no server part
    {"mcpToolPolicy": ["*"]},
    {"sampling": "off"},
    {"autopilot": 0},
    {"allowNetwork": None},
    {"allowedHosts": "example.com"},
    {"allowedHosts": ["https://example.com/"]},
    {"requiredMcpServers": ["docs"]},
    {"requiredMcpServers": {"docs": "https://docs.example.com"}},
    {"contact": ""},
    ["deniedMcpServers"],
]

# Each must parse as written, restricting exactly what it says.
MUST_PASS: list[tuple[dict[str, object], ManagedPolicy]] = [
    ({}, ManagedPolicy(file=FILE)),
    (
        {"deniedMcpServers": [{"name": "evil"}, {"command": "npx -y @evil/*"}]},
        ManagedPolicy(
            file=FILE,
            denied=(
                ServerMatch("deniedMcpServers[0]", name="evil"),
                ServerMatch("deniedMcpServers[1]", command="npx -y @evil/*"),
            ),
        ),
    ),
    ({"allowedMcpServers": []}, ManagedPolicy(file=FILE, allowed=())),
    (  # a fingerprint compares in lower case, however the administrator wrote it
        {"deniedMcpServers": [{"fingerprint": " " + "AB0f" * 16 + " "}]},
        ManagedPolicy(file=FILE, denied=(ServerMatch("deniedMcpServers[0]", fingerprint="ab0f" * 16),)),
    ),
    (
        {"allowedMcpServers": [{"url": "https://*.example.com/mcp", "name": "docs"}]},
        ManagedPolicy(
            file=FILE,
            allowed=(ServerMatch("allowedMcpServers[0]", name="docs", url="https://*.example.com/mcp"),),
        ),
    ),
    ({"mcpSandbox": "repository"}, ManagedPolicy(file=FILE, sandbox="repository")),
    ({"mcpSandbox": "none"}, ManagedPolicy(file=FILE)),
    (
        {"mcpToolPolicy": {"*__delete_*": "deny", "github__*": "ask"}},
        ManagedPolicy(file=FILE, tool_rules={"*__delete_*": "deny", "github__*": "ask"}),
    ),
    (
        {"sampling": False, "autopilot": False, "allowNetwork": False},
        ManagedPolicy(file=FILE, sampling=False, autopilot=False, allow_network=False),
    ),
    ({"sampling": True}, ManagedPolicy(file=FILE)),
    (
        {"allowedHosts": ["*.Example.com", "pypi.org:443"]},
        ManagedPolicy(file=FILE, allowed_hosts=("*.example.com", "pypi.org:443")),
    ),
    ({"repositoryMcpServers": False}, ManagedPolicy(file=FILE, repository_servers=False)),
    ({"contact": "  Ask   #platform  "}, ManagedPolicy(file=FILE, contact="Ask #platform")),
    (
        {"requiredMcpServers": {"docs": {"url": "https://docs.example.com/mcp"}}},
        ManagedPolicy(file=FILE, required={"docs": {"url": "https://docs.example.com/mcp"}}),
    ),
]


@pytest.mark.parametrize("doc", MUST_CLOSE, ids=lambda doc: json.dumps(doc)[:60])
def test_a_file_with_any_mistake_fails_closed(doc: object) -> None:
    policy = parse_managed_policy(doc, file=FILE)
    assert policy.closed
    assert policy.allowed == ()
    assert (policy.sampling, policy.autopilot, policy.allow_network) == (False, False, False)
    assert not policy.repository_servers
    assert policy.allowed_hosts == ()
    assert policy.sandbox == "all"
    assert policy.tool_rules == {"*": "deny"}
    assert policy.problems[0].whole_file
    assert "fails closed until this is fixed" in policy.problems[0].message


@pytest.mark.parametrize(
    ("doc", "expected"), MUST_PASS, ids=lambda item: json.dumps(item)[:60] if isinstance(item, dict) else ""
)
def test_a_correct_file_says_exactly_what_it_restricts(
    doc: dict[str, object], expected: ManagedPolicy
) -> None:
    assert parse_managed_policy(doc, file=FILE) == expected


def test_a_mistake_is_named_by_its_key() -> None:
    policy = parse_managed_policy({"deniedMcpServers": [{"name": "ok"}, {"comand": "x"}]}, file=FILE)
    assert [str(p) for p in policy.problems[1:]] == [
        f"{FILE}: deniedMcpServers[1].comand: unknown key; expected name, command, url, fingerprint"
    ]
    assert str(policy.problems[0]).startswith(
        f"{FILE}: 1 mistake(s), listed below; your organisation's policy"
    )


def test_the_refusal_names_the_file_and_the_contact() -> None:
    policy = ManagedPolicy(file=FILE, contact="Ask #platform")
    assert policy.refusal("blocked", "it matches x") == (
        f"blocked by your organisation's policy ({FILE}): it matches x — Ask #platform"
    )
    assert policy.decided("sandboxed") == f"sandboxed by your organisation's policy ({FILE})"


def test_each_platform_has_its_administrators_place() -> None:
    assert str(managed_settings_path("linux")) == "/etc/levelcode/managed-settings.json"
    assert (
        str(managed_settings_path("darwin")) == "/Library/Application Support/LevelCode/managed-settings.json"
    )
    assert str(managed_settings_path("win32")) == "C:\\Program Files\\LevelCode\\managed-settings.json"


def test_no_environment_variable_moves_the_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Load-bearing: whoever sets LevelCode's environment must not choose its policy."""
    for name in ("LEVELCODE_MANAGED_SETTINGS", "LEVELCODE_HOME", "XDG_CONFIG_DIRS", "ProgramData", "HOME"):
        monkeypatch.setenv(name, "/tmp/attacker")
    assert str(managed_settings_path("linux")) == "/etc/levelcode/managed-settings.json"


# --- reading the file --------------------------------------------------------------------------


def _policy_at(folder: Path, text: str) -> Path:
    folder.mkdir(mode=0o755)
    path = folder / "managed-settings.json"
    path.write_text(text)
    path.chmod(0o644)
    return path


def test_a_missing_file_is_no_policy(tmp_path: Path) -> None:
    assert read_managed_policy(tmp_path / "absent.json") is NO_POLICY


def test_bad_json_fails_closed_at_its_line_and_column(tmp_path: Path) -> None:
    path = _policy_at(tmp_path / "etc", '{\n  "sampling": false,\n}\n')
    policy = read_managed_policy(path)
    assert policy.closed
    assert str(policy.problems[0]).startswith(
        f"{path}:2:20: not valid JSON: a comma before '}}'; JSON allows no trailing comma; "
        "your organisation's policy fails closed"
    )


# A file that is there but states no policy: each closes it, with what is wrong in its first line.
STATES_NOTHING = {
    "": "not valid JSON: the file is empty",
    "\n \t\n": "not valid JSON: the file is empty",
    "null": "expected a JSON object, not null",
    "[]": "expected a JSON object, not a list",
    '[{"sampling": false}]': "expected a JSON object, not a list",
    "false": "expected a JSON object, not false",
    "0": "expected a JSON object, not a number",
    '""': "expected a JSON object, not a string",
}


@pytest.mark.parametrize("text", STATES_NOTHING, ids=repr)
def test_a_file_that_states_no_policy_fails_closed(tmp_path: Path, text: str) -> None:
    path = _policy_at(tmp_path / "etc", text)
    policy = read_managed_policy(path)
    assert policy.closed
    assert str(policy.problems[0]) == (
        f"{path}: {STATES_NOTHING[text]} (to have no policy, remove the file); "
        "your organisation's policy fails closed until this is fixed: no MCP server starts, and "
        "autopilot, network access and sampling are off (tell whoever manages LevelCode here)"
    )


def test_an_empty_object_is_a_policy_that_restricts_nothing(tmp_path: Path) -> None:
    path = _policy_at(tmp_path / "etc", "{}")
    assert read_managed_policy(path) == ManagedPolicy(file=str(path))


def test_a_link_to_a_file_that_is_gone_fails_closed(tmp_path: Path) -> None:
    folder = tmp_path / "etc"
    folder.mkdir(mode=0o755)
    (folder / "managed-settings.json").symlink_to(folder / "gone.json")
    policy = read_managed_policy(folder / "managed-settings.json")
    assert policy.closed
    assert "cannot be read: a link to a file that is not there" in policy.problems[0].message


def test_an_unreadable_file_fails_closed(tmp_path: Path) -> None:
    path = _policy_at(tmp_path / "etc", "{}")
    path.unlink()
    path.mkdir()  # a folder where the file should be: it exists, and it cannot be read
    assert read_managed_policy(path).closed


def test_the_file_is_read_once_per_process(tmp_path: Path) -> None:
    path = _policy_at(tmp_path / "etc", '{"sampling": false}')
    first = read_managed_policy(path)
    path.write_text('{"sampling": true}')
    assert read_managed_policy(path) is first
    assert (
        load_settings(tmp_path, tmp_path / "settings.json", managed=None).managed is not first
    )  # another path


@pytest.mark.skipif(os.geteuid() != 0, reason="making a file another user's needs root")
def test_a_file_others_can_change_is_warned_about(tmp_path: Path) -> None:
    path = _policy_at(tmp_path / "etc", '{"sampling": false}')
    path.chmod(0o666)
    said = [str(p) for p in read_managed_policy(path).problems]
    assert said == [
        f"{path}: owner and mode: warning: the file is writable by everyone, so more than your "
        "administrators can change your organisation's policy; it should be owned by root and "
        "writable by root alone"
    ]
    other = _policy_at(tmp_path / "etc2", "{}")
    os.chown(other, 1000, 1000)
    assert "the file is owned by uid 1000, not root" in str(read_managed_policy(other).problems[0])


# Owner and mode: must warn / must pass.
@pytest.mark.parametrize(
    ("uid", "mode", "folder"),
    [(1000, 0o644, False), (0, 0o666, False), (0, 0o664, False), (0, 0o777, True), (501, 0o755, True)],
)
def test_ownership_that_lets_others_change_the_policy(uid: int, mode: int, folder: bool) -> None:
    assert ownership_problem(uid, mode, folder=folder) is not None


@pytest.mark.parametrize(
    ("uid", "mode", "folder"), [(0, 0o644, False), (0, 0o600, False), (0, 0o755, True), (0, 0o1777, True)]
)
def test_ownership_only_root_can_change(uid: int, mode: int, folder: bool) -> None:
    assert ownership_problem(uid, mode, folder=folder) is None


# --- what the user's settings cannot loosen -----------------------------------------------------

HOSTS = ("*.example.com", "pypi.org")


@pytest.mark.parametrize(
    "entry", ["api.example.com", "a.b.example.com:443", "*.x.example.com", "pypi.org", "pypi.org:80"]
)
def test_hosts_within_the_organisations_list(entry: str) -> None:
    assert host_permitted(entry, HOSTS)


@pytest.mark.parametrize(
    "entry",
    [
        "example.com",
        "evil.com",
        "example.com.evil.com",
        "pypi.org:8080",
        "*.pypi.org",
        "api.example.com:22",
        "not a host",
    ],
)
def test_hosts_outside_the_organisations_list(entry: str) -> None:
    assert not host_permitted(entry, HOSTS)


def test_the_users_settings_cannot_turn_on_what_the_policy_turns_off(tmp_path: Path) -> None:
    policy = ManagedPolicy(file=FILE, autopilot=False, allowed_hosts=("pypi.org",))
    user = {"autopilot": True, "sandbox": {"network": ["pypi.org", "evil.com"]}}
    said = [p.key + ": " + p.message for p in settings_of(user, policy).problems]
    assert said == [
        f"autopilot: ignored by your organisation's policy ({FILE}): it turns autopilot off",
        f"sandbox.network: 'evil.com' ignored by your organisation's policy ({FILE}): "
        "not among its allowedHosts",
    ]
    (tmp_path / "settings.json").write_text(json.dumps(user))
    settings = load_settings(tmp_path, tmp_path / "settings.json", managed=policy)
    assert not settings.autopilot
    assert settings.sandbox_hosts == ("pypi.org",)
    network = load_settings(
        tmp_path, tmp_path / "settings.json", managed=ManagedPolicy(file=FILE, allow_network=False)
    )
    assert network.sandbox_hosts == ()
