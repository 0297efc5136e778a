"""What a failed confined command is told about the sandbox. Load-bearing direction (first
corpus): the sandbox's own refusals — a read-only file system, git's control files kept read-only
(a config write refused as read-only, or as busy where a mount point cannot be replaced), a
hidden secret store, a network that is off or filtered, a program the private /tmp
hides — are named when a command fails with them. The second corpus: a command that succeeded, an
ordinary failure, a network error while the network is allowed, a mention of the (writable) cache
folder, a refused write that is not git's, and a missing /tmp file the sandbox did not hide blame
nothing on the sandbox (or on git)."""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.sandbox.diagnosis import (
    GIT_READ_ONLY,
    NETWORK_FILTERED,
    NETWORK_OFF,
    SECRETS_HIDDEN,
    WRITE_REFUSED,
    sandbox_refusals,
)
from levelcode.sandbox.egress import EgressRoute
from levelcode.sandbox.egress_rules import EgressRules
from levelcode.sandbox.policy import SandboxPolicy

STATE = Path("/home/u/.local/state/levelcode")
POLICY = SandboxPolicy(
    workdir=Path("/ws"),
    writable=(Path("/ws"),),
    hidden_dirs=(Path("/home/u/.ssh"), STATE),
    hidden_files=(Path("/home/u/.netrc"),),
    cache_dir=STATE / "sandbox" / "cache" / "ws-1",
)
ONLINE = SandboxPolicy(workdir=Path("/ws"), network=True)

REFUSED = [
    ("touch: cannot touch '/etc/x': Read-only file system", 1, WRITE_REFUSED),
    ("bash: .git/config: Read-only file system", 1, GIT_READ_ONLY),
    ("fatal: Unable to create '/ws/.git/index.lock': Read-only file system", 128, GIT_READ_ONLY),
    (
        "fatal: cannot lock ref 'refs/heads/x': Unable to create '/ws/.git/refs/heads/x.lock': "
        "Read-only file system",
        128,
        GIT_READ_ONLY,
    ),
    ("error: could not lock config file .git/config: Read-only file system", 255, GIT_READ_ONLY),
    ("sed: couldn't open temporary file ./sedX1: Read-only file system\n.gitmodules", 4, WRITE_REFUSED),
    ("error: could not write config file .git/config: Device or resource busy", 255, GIT_READ_ONLY),
    ("fatal: failed to delete '/ws/.git/worktrees/wt': Device or resource busy", 128, GIT_READ_ONLY),
    ("OSError: [Errno 30] Read-only file system: '/home/u/.bashrc'", 1, WRITE_REFUSED),
    ("npm ERR! code EROFS", 1, WRITE_REFUSED),
    ("cat: /home/u/.ssh/id_rsa: No such file or directory", 1, SECRETS_HIDDEN),
    ("ls: cannot open directory '/home/u/.local/state/levelcode': Permission denied", 2, SECRETS_HIDDEN),
    (
        "curl: (7) Failed to connect to 127.0.0.1 port 8000 after 0 ms: Couldn't connect to server",
        7,
        NETWORK_OFF,
    ),
    ("curl: (6) Could not resolve host: example.com", 6, NETWORK_OFF),
    ("socket.gaierror: [Errno -3] Temporary failure in name resolution", 1, NETWORK_OFF),
    ("OSError: [Errno 101] Network is unreachable", 1, NETWORK_OFF),
    ("ConnectionRefusedError: [Errno 111] Connection refused", 1, NETWORK_OFF),
    ("npm error code EAI_AGAIN", 1, NETWORK_OFF),
    (
        "fatal: unable to access 'https://github.com/x/y/': Could not resolve host: github.com",
        128,
        NETWORK_OFF,
    ),
]

NOT_THE_SANDBOX = [
    ("touch: cannot touch '/etc/x': Read-only file system", 0, POLICY),  # it did not fail
    ("AssertionError: expected 2, got 1", 1, POLICY),
    ("cat: missing.txt: No such file or directory", 1, POLICY),
    ("curl: (7) Failed to connect to 127.0.0.1 port 8000: Connection refused", 7, ONLINE),
    (
        f"npm error A complete log of this run can be found in: {STATE}/sandbox/cache/ws-1/npm/_logs/x.log",
        1,
        POLICY,
    ),
    ("killed", None, POLICY),
    ("umount: /ws/mnt: target is busy (Device or resource busy)", 32, POLICY),  # busy, but not git's
]


@pytest.mark.parametrize(("output", "code", "refusal"), REFUSED)
def test_the_sandboxs_refusals_are_named(output: str, code: int, refusal: str) -> None:
    assert refusal in sandbox_refusals(output, code, POLICY)


@pytest.mark.parametrize(("output", "code", "policy"), NOT_THE_SANDBOX)
def test_ordinary_outcomes_blame_nothing_on_the_sandbox(
    output: str, code: int | None, policy: SandboxPolicy
) -> None:
    assert sandbox_refusals(output, code, policy) == ()


@pytest.mark.parametrize(
    "output",
    [
        "bash: line 1: .git-local.cfg: Read-only file system",  # a file whose name starts with .git
        "bash: .gitmodules: Read-only file system",
        "touch: cannot touch 'src/.gitignore': Read-only file system",
        "OSError: [Errno 30] Read-only file system: '/home/u/my.git.notes'",
    ],
)
def test_a_refused_write_that_is_not_git_s_is_not_blamed_on_git(output: str) -> None:
    assert sandbox_refusals(output, 1, POLICY) == (WRITE_REFUSED,)


def test_the_git_refusal_says_what_fails_what_works_and_what_to_do() -> None:
    for words in ("git works", "commit", "read-only", "config", "hooks", "remote add", "outside the sandbox"):
        assert words in GIT_READ_ONLY
    both = sandbox_refusals("bash: .git/config: Read-only file system\ntouch: /etc/x: EROFS", 1, POLICY)
    assert both == (GIT_READ_ONLY, WRITE_REFUSED)


def test_the_network_refusal_says_how_the_user_can_allow_it() -> None:
    assert "--allow-network" in NETWORK_OFF
    assert '"sandbox": {"network": true}' in NETWORK_OFF
    refusals = (NETWORK_OFF, WRITE_REFUSED, SECRETS_HIDDEN, GIT_READ_ONLY)
    assert all(line.startswith("[sandbox] ") for line in refusals)


# --- the egress filter and the private /tmp ----------------------------------------------------------

FILTERED = SandboxPolicy(
    workdir=Path("/ws"),
    writable=(Path("/ws"),),
    egress=EgressRoute(Path("/s/egress/x"), EgressRules.from_texts(["api.example.com"], []), "{host}"),
)


def test_a_filtered_network_names_its_hosts_and_how_to_add_one() -> None:
    refused = "[sandbox] refused a connection to evil.example:443: not on the network list; ..."
    for output in (
        refused + "\nurllib.error.HTTPError: HTTP Error 403: Forbidden",
        "Could not resolve host: x",
    ):
        (line,) = sandbox_refusals(output, 1, FILTERED)
        assert line == NETWORK_FILTERED.format(hosts="api.example.com")
        assert "--allow-host HOST" in line
    assert "--allow-host HOST" in NETWORK_OFF


def test_a_program_the_private_tmp_hides_is_named_with_the_fix() -> None:
    on_host = {"/tmp/tools/run.sh", "/tmp/x.sh"}.__contains__
    output = "bash: line 1: /tmp/tools/run.sh: No such file or directory"
    assert sandbox_refusals(output, 127, POLICY, exists=on_host) == (
        "[sandbox] /tmp is private in the sandbox: /tmp/tools/run.sh is on this machine but not in there; "
        "move it out of /tmp, or let commands use its folder with --add-dir /tmp/tools",
    )
    (line,) = sandbox_refusals("python3: can't open file '/tmp/x.sh': [Errno 2]", 2, POLICY, exists=on_host)
    assert line.endswith("with a folder outside /tmp")


@pytest.mark.parametrize(
    ("output", "shown"),
    [
        ("bash: /tmp/gone.sh: No such file or directory", ()),  # not on the host either
        ("cat: /tmp/ws/a.txt: No such file or directory", (Path("/tmp/ws"),)),  # a folder it sees
        ("wrote /tmp/tools/run.sh", ()),  # no complaint of a missing file
    ],
)
def test_a_missing_file_the_sandbox_did_not_hide_is_not_blamed_on_it(
    output: str, shown: tuple[Path, ...]
) -> None:
    policy = SandboxPolicy(workdir=Path("/tmp/ws"), writable=shown)
    on_host = {"/tmp/tools/run.sh", "/tmp/ws/a.txt"}.__contains__
    assert sandbox_refusals(output, 1, policy, exists=on_host) == ()
