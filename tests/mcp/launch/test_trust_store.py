"""Trust store (gate G1). Load-bearing direction: a repository server is trusted only when this
store holds the fingerprint of exactly this launch for exactly this workspace; a store that
cannot be read (garbage, a list, a directory, no permission, the wrong shape) trusts nothing and
says so; the file is owner-only and written atomically under the lock, so approvals made by
several LevelCode processes at once all land. The second corpus: an approval survives a new
process, a symlinked path to the workspace is the same workspace, and after a bad store is set
aside the next approval works."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from levelcode.mcp.config.allow_rules import AllowRule, ToolDefinition
from levelcode.mcp.config.specs import HttpServerSpec, Provenance, StdioServerSpec
from levelcode.mcp.launch.inspection import inspect_launch
from levelcode.mcp.launch.plan import launch_text
from levelcode.mcp.launch.trust import MISSING, launch_fingerprint
from levelcode.mcp.launch.trust_store import TrustStore, workspace_key
from tests.platform.test_json_store import run_together

WS = Provenance("workspace", "/repo/.mcp.json")
SPEC = StdioServerSpec(
    name="fs",
    command="npx",
    args=("-y", "@modelcontextprotocol/server-filesystem", "/repo"),
    env=(("NODE_ENV", "production"),),
    provenance=WS,
)

# where `npx -y @modelcontextprotocol/server-filesystem` would find a copy in the workspace
NPX_LOOKS_FOR = (".bin/server-filesystem", "@modelcontextprotocol/server-filesystem/package.json")


def _permissions_stop_reads() -> bool:
    """False as root (euid 0 with CAP_DAC_OVERRIDE), where chmod 000 does not stop a read."""
    with tempfile.TemporaryDirectory() as directory:
        probe = Path(directory) / "probe"
        probe.write_text("x", encoding="utf-8")
        probe.chmod(0o000)
        try:
            probe.read_text(encoding="utf-8")
        except PermissionError:
            return True
        return False


ROOT_READS_ANYTHING = "runs as root (uid 0), where chmod 000 does not stop reading the file"
UNREADABLE_BY_MODE = _permissions_stop_reads()


def _approve(store: TrustStore, workspace: Path, spec: StdioServerSpec = SPEC) -> None:
    store.approve(workspace, spec, launch_text(spec))


def _warning(store: TrustStore) -> str | None:
    return store.warning


def _aside(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".unreadable-*"))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    return path


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "state" / "trust.json"


def test_the_default_store_lives_in_the_state_dir(isolated_home: Path, workspace: Path) -> None:
    store = TrustStore()
    assert store.path == isolated_home / "state" / "trust.json"
    _approve(store, workspace)
    assert TrustStore().state(workspace, SPEC) == "approved"


def test_nothing_is_trusted_in_a_new_store_and_reading_writes_nothing(
    store_path: Path, workspace: Path
) -> None:
    store = TrustStore(store_path)
    assert store.state(workspace, SPEC) == "never_approved"
    assert store.recorded(workspace, SPEC.name) is None
    assert store.approved_servers(workspace) == {}
    assert store.warning is None
    assert not store_path.exists()


def test_an_approval_holds_for_a_new_process_and_records_the_launch(
    store_path: Path, workspace: Path
) -> None:
    _approve(TrustStore(store_path), workspace)
    fresh = TrustStore(store_path)
    assert fresh.state(workspace, SPEC) == "approved"
    recorded = fresh.recorded(workspace, SPEC.name)
    assert recorded is not None
    facts = inspect_launch(SPEC, workspace, os.environ)
    assert recorded.fingerprint == launch_fingerprint(SPEC, facts)
    assert recorded.command == launch_fingerprint(SPEC)
    assert recorded.program == shutil.which("npx")
    assert recorded.files == {".npmrc": MISSING, **{f"node_modules/{p}": MISSING for p in NPX_LOOKS_FOR}}
    assert fresh.approved_servers(workspace) == {"fs": launch_text(SPEC)}
    doc = json.loads(store_path.read_text(encoding="utf-8"))
    assert doc["version"] == 1
    assert set(doc["workspaces"]) == {os.path.realpath(workspace)}


def test_an_http_server_can_be_approved(store_path: Path, workspace: Path) -> None:
    spec = HttpServerSpec(name="web", url="https://mcp.example/api", provenance=WS)
    TrustStore(store_path).approve(workspace, spec, spec.url)
    assert TrustStore(store_path).state(workspace, spec) == "approved"
    moved = dataclasses.replace(spec, url="https://evil.example/api")
    assert TrustStore(store_path).state(workspace, moved) == "changed"


CHANGES = {
    "command": dataclasses.replace(SPEC, command="node"),
    "an argument": dataclasses.replace(SPEC, args=("-y", "@modelcontextprotocol/server-filesystem", "/")),
    "an extra argument": dataclasses.replace(SPEC, args=(*SPEC.args, "--write")),
    "one argument fewer": dataclasses.replace(SPEC, args=SPEC.args[:-1]),
    "an env value": dataclasses.replace(SPEC, env=(("NODE_ENV", "development"),)),
    "an env entry added": dataclasses.replace(
        SPEC, env=(*SPEC.env, ("NODE_OPTIONS", "--require /tmp/evil.js"))
    ),
    "an env entry removed": dataclasses.replace(SPEC, env=()),
    "the cwd": dataclasses.replace(SPEC, cwd="/tmp"),
}


@pytest.mark.parametrize("changed", CHANGES.values(), ids=CHANGES.keys())
def test_any_change_to_an_approved_launch_is_changed_not_approved(
    store_path: Path, workspace: Path, changed: StdioServerSpec
) -> None:
    _approve(TrustStore(store_path), workspace)
    store = TrustStore(store_path)
    assert store.state(workspace, changed) == "changed"
    _approve(store, workspace, changed)
    assert TrustStore(store_path).state(workspace, changed) == "approved"
    assert TrustStore(store_path).state(workspace, SPEC) == "changed"


def test_an_approval_is_for_one_workspace_and_one_server_name(
    store_path: Path, workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other-repo"
    other.mkdir()
    _approve(TrustStore(store_path), workspace)
    store = TrustStore(store_path)
    assert store.state(other, SPEC) == "never_approved"
    assert store.state(workspace, dataclasses.replace(SPEC, name="fs2")) == "never_approved"
    assert store.approved_servers(other) == {}


def test_a_symlinked_workspace_path_is_the_same_workspace(
    store_path: Path, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    link = tmp_path / "link-to-repo"
    link.symlink_to(workspace, target_is_directory=True)
    assert workspace_key(link) == workspace_key(workspace)
    _approve(TrustStore(store_path), link)
    store = TrustStore(store_path)
    assert store.state(workspace, SPEC) == "approved"
    assert store.approved_servers(workspace) == {"fs": launch_text(SPEC)}
    monkeypatch.chdir(tmp_path)
    assert store.state(Path("repo"), SPEC) == "approved"
    assert store.state(Path("link-to-repo/../repo"), SPEC) == "approved"
    assert store.revoke(workspace, "fs") is True
    assert TrustStore(store_path).state(link, SPEC) == "never_approved"


def test_revoke_forgets_one_server_and_says_whether_there_was_one(store_path: Path, workspace: Path) -> None:
    store = TrustStore(store_path)
    other = dataclasses.replace(SPEC, name="gh", command="gh-mcp")
    _approve(store, workspace)
    _approve(store, workspace, other)
    assert store.revoke(workspace, "fs") is True
    fresh = TrustStore(store_path)
    assert fresh.state(workspace, SPEC) == "never_approved"
    assert fresh.state(workspace, other) == "approved"
    assert fresh.revoke(workspace, "fs") is False
    assert fresh.revoke(workspace, "never-there") is False


def test_revoke_all_forgets_this_workspace_only(store_path: Path, workspace: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    store = TrustStore(store_path)
    _approve(store, workspace)
    _approve(store, workspace, dataclasses.replace(SPEC, name="gh"))
    _approve(store, elsewhere)
    assert store.revoke_all(workspace) == 2
    fresh = TrustStore(store_path)
    assert fresh.approved_servers(workspace) == {}
    assert fresh.state(elsewhere, SPEC) == "approved"
    assert fresh.revoke_all(workspace) == 0


@pytest.mark.parametrize("umask", [0o000, 0o022])
def test_the_store_is_owner_only_whatever_the_umask(store_path: Path, workspace: Path, umask: int) -> None:
    before = os.umask(umask)
    try:
        _approve(TrustStore(store_path), workspace)
    finally:
        os.umask(before)
    assert store_path.stat().st_mode & 0o777 == 0o600


def test_a_world_readable_store_becomes_owner_only_on_the_next_write(
    store_path: Path, workspace: Path
) -> None:
    store_path.parent.mkdir(parents=True)
    store_path.write_text("{}", encoding="utf-8")
    store_path.chmod(0o644)
    _approve(TrustStore(store_path), workspace)
    assert store_path.stat().st_mode & 0o777 == 0o600


def test_every_write_replaces_the_file_whole(store_path: Path, workspace: Path) -> None:
    _approve(TrustStore(store_path), workspace)
    with store_path.open(encoding="utf-8") as reader:
        old = reader.read()
        reader.seek(0)
        TrustStore(store_path).revoke(workspace, "fs")
        assert reader.read() == old  # the old file is untouched: a new one took its name
    assert sorted(p.name for p in store_path.parent.iterdir()) == ["trust.json", "trust.json.lock"]


def _trusting_doc(workspace: Path) -> dict[str, object]:
    entry = {"fingerprint": launch_fingerprint(SPEC), "launch": launch_text(SPEC)}
    return {"version": 1, "workspaces": {os.path.realpath(workspace): {"fs": entry}}}


def _write(content: bytes) -> Callable[[Path, Path], None]:
    def make(path: Path, workspace: Path) -> None:
        path.write_bytes(content)

    return make


def _truncated(path: Path, workspace: Path) -> None:
    path.write_text(json.dumps(_trusting_doc(workspace))[:-3], encoding="utf-8")


def _in_a_list(path: Path, workspace: Path) -> None:
    path.write_text(json.dumps([_trusting_doc(workspace)]), encoding="utf-8")


def _a_directory(path: Path, workspace: Path) -> None:
    path.mkdir()
    (path / "trust.json").write_text(json.dumps(_trusting_doc(workspace)), encoding="utf-8")


def _no_permission(path: Path, workspace: Path) -> None:
    path.write_text(json.dumps(_trusting_doc(workspace)), encoding="utf-8")
    path.chmod(0o000)


UNREADABLE = [
    pytest.param(_write(b"\x00\xff\xfe\x80 garbage"), id="garbage bytes"),
    pytest.param(_write(b"trust everything"), id="not json"),
    pytest.param(_truncated, id="a trusting store cut short"),
    pytest.param(_in_a_list, id="a json list"),
    pytest.param(_write(b'"fs"'), id="a json string"),
    pytest.param(_a_directory, id="a directory"),
    pytest.param(
        _no_permission,
        id="no read permission",
        marks=pytest.mark.skipif(not UNREADABLE_BY_MODE, reason=ROOT_READS_ANYTHING),
    ),
]


@pytest.mark.parametrize("make", UNREADABLE)
def test_an_unreadable_store_trusts_nothing_and_warns(
    store_path: Path, workspace: Path, make: Callable[[Path, Path], None]
) -> None:
    store_path.parent.mkdir(parents=True)
    make(store_path, workspace)
    store = TrustStore(store_path)
    assert store.state(workspace, SPEC) == "never_approved"
    assert store.approved_servers(workspace) == {}
    assert store.warning is not None
    assert str(store_path) in store.warning
    assert "no repository server is trusted" in store.warning


@pytest.mark.parametrize("make", UNREADABLE)
def test_the_next_approval_sets_an_unreadable_store_aside_and_starts_anew(
    store_path: Path, workspace: Path, make: Callable[[Path, Path], None]
) -> None:
    store_path.parent.mkdir(parents=True)
    make(store_path, workspace)
    was_dir = store_path.is_dir()
    before = None if was_dir or not os.access(store_path, os.R_OK) else store_path.read_bytes()
    other = dataclasses.replace(SPEC, name="gh", command="gh-mcp")
    store = TrustStore(store_path)
    _approve(store, workspace, other)
    assert store.warning is None
    [aside] = _aside(store_path)
    assert aside.is_dir() == was_dir
    if before is not None:
        assert aside.read_bytes() == before
    fresh = TrustStore(store_path)
    assert fresh.warning is None
    assert fresh.approved_servers(workspace) == {"gh": launch_text(other)}
    assert fresh.state(workspace, SPEC) == "never_approved"
    assert store_path.is_file()
    assert store_path.stat().st_mode & 0o777 == 0o600


WRONG_SHAPE = {
    "workspaces is a list": {"version": 1, "workspaces": [{"fs": launch_fingerprint(SPEC)}]},
    "workspaces is a string": {"version": 1, "workspaces": "all"},
}


@pytest.mark.parametrize("doc", WRONG_SHAPE.values(), ids=WRONG_SHAPE.keys())
def test_a_store_of_the_wrong_shape_trusts_nothing_and_warns(
    store_path: Path, workspace: Path, doc: dict[str, object]
) -> None:
    store_path.parent.mkdir(parents=True)
    store_path.write_text(json.dumps(doc), encoding="utf-8")
    store = TrustStore(store_path)
    assert store.state(workspace, SPEC) == "never_approved"
    assert store.warning is not None
    assert str(store_path) in store.warning
    _approve(store, workspace)
    assert _warning(store) is None  # the approval wrote a good store, so the warning is over
    assert TrustStore(store_path).state(workspace, SPEC) == "approved"


BROKEN_ENTRIES = {
    "entry is the bare fingerprint": lambda fp: fp,
    "fingerprint is a number": lambda fp: {"fingerprint": 7},
    "fingerprint is missing": lambda fp: {"launch": "npx"},
    "fingerprint is a list": lambda fp: {"fingerprint": [fp]},
}


@pytest.mark.parametrize("entry", BROKEN_ENTRIES.values(), ids=BROKEN_ENTRIES.keys())
def test_a_malformed_entry_trusts_nothing(
    store_path: Path, workspace: Path, entry: Callable[[str], object]
) -> None:
    doc = {"version": 1, "workspaces": {os.path.realpath(workspace): {"fs": entry(launch_fingerprint(SPEC))}}}
    store_path.parent.mkdir(parents=True)
    store_path.write_text(json.dumps(doc), encoding="utf-8")
    assert TrustStore(store_path).state(workspace, SPEC) == "never_approved"


def test_a_store_held_by_another_process_is_read_fresh_before_writing(
    store_path: Path, workspace: Path
) -> None:
    first, second = TrustStore(store_path), TrustStore(store_path)
    _approve(first, workspace)
    _approve(second, workspace, dataclasses.replace(SPEC, name="gh"))  # second never saw "fs"
    assert set(TrustStore(store_path).approved_servers(workspace)) == {"fs", "gh"}


APPROVER = """
import sys
from pathlib import Path
from levelcode.mcp.config.specs import Provenance, StdioServerSpec
from levelcode.mcp.launch.trust_store import TrustStore

worker, count, workspace = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
store = TrustStore()
specs = [
    StdioServerSpec(
        name=f"{worker}-{i}",
        command="node",
        args=(f"server-{worker}-{i}.js",),
        provenance=Provenance("workspace", "/repo/.mcp.json"),
    )
    for i in range(count)
]
print("ready", flush=True)
sys.stdin.readline()
for spec in specs:
    store.approve(workspace, spec, "node " + spec.args[0])
"""


def _worker_spec(worker: str, index: int) -> StdioServerSpec:
    return StdioServerSpec(
        name=f"{worker}-{index}", command="node", args=(f"server-{worker}-{index}.js",), provenance=WS
    )


def _approve_from_processes(workspaces: list[Path], workers: int, count: int) -> dict[str, Path]:
    """Each worker process approves `count` servers in one of the workspaces, all at the same time."""
    assigned = {f"w{i}": workspaces[i % len(workspaces)] for i in range(workers)}
    run_together([[APPROVER, worker, str(count), str(ws)] for worker, ws in assigned.items()])
    return assigned


def _assert_all_approved(store: TrustStore, assigned: dict[str, Path], count: int) -> None:
    for worker, ws in assigned.items():
        for index in range(count):
            assert store.state(ws, _worker_spec(worker, index)) == "approved", (worker, index)
    total = sum(len(store.approved_servers(ws)) for ws in set(assigned.values()))
    assert total == len(assigned) * count


def test_approvals_from_several_processes_at_once_all_land(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    second = tmp_path / "second-repo"
    second.mkdir()
    workers, count = 8, 6
    assigned = _approve_from_processes([workspace, second], workers, count)
    store_path = isolated_home / "state" / "trust.json"
    json.loads(store_path.read_text(encoding="utf-8"))  # valid JSON
    store = TrustStore(store_path)
    assert store.warning is None
    _assert_all_approved(store, assigned, count)
    assert store_path.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in store_path.parent.iterdir()) == ["trust.json", "trust.json.lock"]


def test_processes_meeting_a_corrupt_store_set_it_aside_once_and_all_land(
    isolated_home: Path, workspace: Path
) -> None:
    store_path = isolated_home / "state" / "trust.json"
    store_path.parent.mkdir(parents=True)
    store_path.write_bytes(b"\xff not a store")
    workers, count = 4, 4
    assigned = _approve_from_processes([workspace], workers, count)
    store = TrustStore(store_path)
    assert store.warning is None
    _assert_all_approved(store, assigned, count)
    [aside] = _aside(store_path)
    assert aside.read_bytes() == b"\xff not a store"
    assert store_path.stat().st_mode & 0o777 == 0o600


def test_revoke_reports_an_approval_made_by_another_process_since_loading(
    store_path: Path, workspace: Path
) -> None:
    loaded_early = TrustStore(store_path)
    _approve(TrustStore(store_path), workspace)
    assert loaded_early.revoke(workspace, "fs") is True  # it did remove it


# --- "always" for a repository's server, kept inside its approval (gate G2) ------------------------

DEFINITION = ToolDefinition("a" * 64, "b" * 64, "c" * 64)


def test_always_is_kept_inside_the_approval_of_this_workspace_only(
    store_path: Path, workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other-repo"
    other.mkdir()
    store = TrustStore(store_path)
    for place in (workspace, other):
        store.approve(place, SPEC, launch_text(SPEC))
    assert store.allow_tool(workspace, SPEC, "read_file", DEFINITION)
    again = TrustStore(store_path)
    assert again.tool_allowances(workspace, SPEC) == {"read_file": AllowRule("allow", DEFINITION)}
    assert again.tool_allowances(other, SPEC) == {}  # the same server name in another repository


def test_a_launch_change_voids_the_allowances_and_a_reapproval_starts_with_none(
    store_path: Path, workspace: Path
) -> None:
    store = TrustStore(store_path)
    store.approve(workspace, SPEC, launch_text(SPEC))
    store.allow_tool(workspace, SPEC, "read_file", DEFINITION)
    changed = dataclasses.replace(SPEC, args=(*SPEC.args, "/etc"))
    assert store.tool_allowances(workspace, changed) == {}
    assert not store.allow_tool(workspace, changed, "read_file", DEFINITION)  # not approved: not kept
    store.approve(workspace, changed, launch_text(changed))
    assert store.tool_allowances(workspace, changed) == {}
    assert store.tool_allowances(workspace, SPEC) == {}


def test_nothing_is_kept_for_a_server_never_approved(store_path: Path, workspace: Path) -> None:
    store = TrustStore(store_path)
    assert not store.allow_tool(workspace, SPEC, "read_file", DEFINITION)
    assert TrustStore(store_path).approved_servers(workspace) == {}


def test_a_malformed_recorded_allowance_allows_nothing(store_path: Path, workspace: Path) -> None:
    store = TrustStore(store_path)
    store.approve(workspace, SPEC, launch_text(SPEC))
    doc = json.loads(store_path.read_text())
    doc["workspaces"][workspace_key(workspace)]["fs"]["tools"] = {
        "a": "allow",
        "b": {"decision": "allow", "definition": {"description": "x"}},
        "c": {"decision": "yes"},
    }
    store_path.write_text(json.dumps(doc))
    assert TrustStore(store_path).tool_allowances(workspace, SPEC) == {}


def test_the_sandbox_answer_is_kept_with_the_approval_and_replaced_by_the_next(
    store_path: Path, workspace: Path
) -> None:
    store = TrustStore(store_path)
    store.approve(workspace, SPEC, launch_text(SPEC), sandbox="workspace")
    assert TrustStore(store_path).sandbox_choice(workspace, SPEC) == "workspace"
    _approve(TrustStore(store_path), workspace)  # approved again, unconfined
    assert TrustStore(store_path).sandbox_choice(workspace, SPEC) is None
    doc = json.loads(store_path.read_text(encoding="utf-8"))
    doc["workspaces"][os.path.realpath(workspace)]["fs"]["sandbox"] = "everything"
    store_path.write_text(json.dumps(doc), encoding="utf-8")
    assert TrustStore(store_path).sandbox_choice(workspace, SPEC) is None  # unknown: not a choice


# --- denials: remembered for exactly the launch denied ---------------------------------------------


def _deny(store: TrustStore, workspace: Path, spec: StdioServerSpec = SPEC) -> None:
    store.deny(workspace, spec, launch_text(spec), store.review(workspace, spec).facts)


def test_a_denial_is_remembered_for_a_new_process_in_an_owner_only_file(
    store_path: Path, workspace: Path
) -> None:
    _deny(TrustStore(store_path), workspace)
    store = TrustStore(store_path)
    assert store.state(workspace, SPEC) == "denied"
    assert store.denial(workspace, "fs") == launch_fingerprint(
        SPEC, inspect_launch(SPEC, workspace, os.environ)
    )
    assert store.approved_servers(workspace) == {}  # a denial is no approval, nor a stale one
    assert store_path.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("changed", CHANGES.values(), ids=CHANGES.keys())
def test_a_changed_launch_is_asked_about_again_after_a_denial(
    store_path: Path, workspace: Path, changed: StdioServerSpec
) -> None:
    _deny(TrustStore(store_path), workspace)
    assert TrustStore(store_path).state(workspace, changed) == "never_approved"


def test_a_file_the_launch_runs_that_changes_is_asked_about_again(store_path: Path, workspace: Path) -> None:
    spec = dataclasses.replace(SPEC, command="python3", args=("server.py",))
    (workspace / "server.py").write_text("print('one')\n")
    _deny(TrustStore(store_path), workspace, spec)
    assert TrustStore(store_path).state(workspace, spec) == "denied"
    (workspace / "server.py").write_text("print('two')\n")
    assert TrustStore(store_path).state(workspace, spec) == "never_approved"


def test_forgetting_a_denial_asks_again_and_says_whether_there_was_one(
    store_path: Path, workspace: Path
) -> None:
    _deny(TrustStore(store_path), workspace)
    store = TrustStore(store_path)
    assert store.forget_denial(workspace, "fs") is True
    assert TrustStore(store_path).state(workspace, SPEC) == "never_approved"
    assert TrustStore(store_path).forget_denial(workspace, "fs") is False


def test_an_approval_replaces_a_denial_and_a_denial_of_a_changed_launch_keeps_the_old_approval(
    store_path: Path, workspace: Path
) -> None:
    _deny(TrustStore(store_path), workspace)
    _approve(TrustStore(store_path), workspace)
    store = TrustStore(store_path)
    assert (store.state(workspace, SPEC), store.denial(workspace, "fs")) == ("approved", None)
    changed = dataclasses.replace(SPEC, args=("-y", "other-server"))
    _deny(store, workspace, changed)
    fresh = TrustStore(store_path)
    assert fresh.state(workspace, changed) == "denied"
    assert fresh.state(workspace, SPEC) == "approved"  # the approved launch, back as it was, still starts


def test_a_denial_is_for_one_workspace_and_one_server_name(
    store_path: Path, workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other-repo"
    other.mkdir()
    _deny(TrustStore(store_path), workspace)
    store = TrustStore(store_path)
    assert store.state(other, SPEC) == "never_approved"
    assert store.state(workspace, dataclasses.replace(SPEC, name="fs2")) == "never_approved"


def test_denials_of_the_wrong_shape_are_no_denials(store_path: Path, workspace: Path) -> None:
    store_path.parent.mkdir(parents=True)
    store_path.write_text(json.dumps({"workspaces": {}, "denials": ["fs"]}), encoding="utf-8")
    store = TrustStore(store_path)
    assert (store.state(workspace, SPEC), store.warning) == ("never_approved", None)
    _deny(store, workspace)  # the bad part is replaced, the rest kept
    assert TrustStore(store_path).state(workspace, SPEC) == "denied"
