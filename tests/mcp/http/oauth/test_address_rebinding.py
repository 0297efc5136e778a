"""DNS rebinding against the sign-in's address guard, driven end to end with the system's own
lookups, in a private network and mount namespace per test (nothing leaves the machine: the
namespace has only its loopback, which also carries a public address and the cloud metadata
service's, and its /etc/hosts is a file the test writes — the lookups read it afresh each time,
as a zero-TTL DNS answer would change). tests/support/rebinding_probe.py runs inside.

Load-bearing direction: a request lands only on the address that was checked, and a remote
server that makes its own name resolve to a private address after LevelCode reached it at a
public one does not thereby count as internal: its sign-in still cannot reach the metadata
service. Skipped where user namespaces are not available.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.rebinding_probe import METADATA_SERVICE, PUBLIC
from tests.support.servers import ROOT

SETUP = """set -e
ip link set lo up
ip addr add {public}/32 dev lo
ip addr add {metadata}/32 dev lo
mount --bind "$1" /etc/hosts
shift
exec "$@"
"""


def in_namespace(tmp_path: Path, hosts: str, scenario: str) -> dict[str, object]:
    ip = shutil.which("ip", path=f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin")
    if shutil.which("unshare") is None or ip is None:
        pytest.skip("unshare or ip is missing")
    if subprocess.run(["unshare", "-rmn", "true"], capture_output=True, check=False).returncode != 0:
        pytest.skip("user namespaces are not available here")
    hosts_file = tmp_path / "hosts"
    hosts_file.write_text(hosts)
    script = SETUP.format(public=PUBLIC, metadata=METADATA_SERVICE).replace("ip ", f"{ip} ")
    probe = [sys.executable, "-m", "tests.support.rebinding_probe", scenario, str(hosts_file)]
    done = subprocess.run(
        ["unshare", "-rmn", "sh", "-c", script, "setup", str(hosts_file), *probe],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert isinstance(outcome, dict)
    return outcome


def test_a_sign_in_request_lands_on_the_address_checked_not_on_a_second_lookup(tmp_path: Path) -> None:
    """The guard's lookup says public; the system's says 127.0.0.1 (what a client resolving the
    name again would connect to)."""
    outcome = in_namespace(tmp_path, "127.0.0.1 localhost\n127.0.0.1 meta.remote.test\n", "second-lookup")
    assert outcome == {"landed": ["public"], "said": '{"answered_by": "public"}'}


def test_a_remote_server_that_rebinds_its_own_name_cannot_send_the_sign_in_to_the_metadata_service(
    tmp_path: Path,
) -> None:
    hosts = f"127.0.0.1 localhost\n{PUBLIC} mcp.remote.test\n"
    outcome = in_namespace(tmp_path, hosts, "server-rebinds")
    assert outcome["landed"] == ["mcp server"]  # nothing reached the metadata service
    said = str(outcome["said"])
    assert f"LevelCode refused GET http://{METADATA_SERVICE}:8080/latest/meta-data/" in said
    assert "is not on such an address itself" in said
    assert (tmp_path / "hosts").read_text().count("10.0.0.7 mcp.remote.test") == 1  # it did rebind
