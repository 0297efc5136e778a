"""Launch fingerprints. Load-bearing direction: any change to what would run — command, any
argument, any env entry (key or value), the working directory, an HTTP URL or header, and for a
repository's stdio server the resolved program or any file it runs — must change the fingerprint,
so an approval never carries over to something else, and the change is named. The second corpus:
the same launch written the same way (env in any order) keeps its fingerprint."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from levelcode.mcp.config.specs import HttpServerSpec, Provenance, StdioServerSpec
from levelcode.mcp.launch.trust import (
    MISSING,
    OLD_APPROVAL,
    ApprovedLaunch,
    LaunchFacts,
    TrustCheck,
    approved_launch,
    check_trust,
    launch_fingerprint,
    needs_launch_approval,
    trust_state,
)

WS = Provenance("workspace", "/repo/.mcp.json")
BASE = StdioServerSpec(
    name="fs",
    command="npx",
    args=("-y", "@modelcontextprotocol/server-filesystem", "/repo"),
    env=(("A", "1"), ("B", "${HOME}")),
    provenance=WS,
)

CHANGED = [
    dataclasses.replace(BASE, command="npx2"),
    dataclasses.replace(BASE, args=(*BASE.args, "/")),
    dataclasses.replace(BASE, args=BASE.args[:-1]),
    dataclasses.replace(BASE, args=("-y", "@modelcontextprotocol/server-filesystem /repo")),
    dataclasses.replace(BASE, env=(*BASE.env, ("NODE_OPTIONS", "--require /tmp/x.js"))),
    dataclasses.replace(BASE, env=(("A", "2"), ("B", "${HOME}"))),
    dataclasses.replace(BASE, env=(("A", "1"), ("B", "/home/me"))),
    dataclasses.replace(BASE, env=(("A", "1"),)),
    dataclasses.replace(BASE, cwd="/elsewhere"),
]


@pytest.mark.parametrize("changed", CHANGED)
def test_any_change_to_what_runs_changes_the_fingerprint(changed: StdioServerSpec) -> None:
    assert launch_fingerprint(changed) != launch_fingerprint(BASE)
    assert trust_state(changed, launch_fingerprint(BASE)) == "changed"


def test_env_is_encoded_structurally_not_as_joined_text() -> None:
    one = dataclasses.replace(BASE, env=(("a", "b=c"),))
    two = dataclasses.replace(BASE, env=(("a=b", "c"),))
    assert launch_fingerprint(one) != launch_fingerprint(two)


def test_args_are_encoded_structurally() -> None:
    one = dataclasses.replace(BASE, args=("a b", "c"))
    two = dataclasses.replace(BASE, args=("a", "b c"))
    assert launch_fingerprint(one) != launch_fingerprint(two)


def test_same_launch_keeps_its_fingerprint_whatever_the_env_order_name_or_file() -> None:
    reordered = dataclasses.replace(BASE, env=tuple(reversed(BASE.env)))
    renamed = dataclasses.replace(
        BASE, name="other", provenance=Provenance("workspace", "/repo/.levelcode/mcp.json")
    )
    assert launch_fingerprint(reordered) == launch_fingerprint(BASE)
    assert launch_fingerprint(renamed) == launch_fingerprint(BASE)
    assert len(launch_fingerprint(BASE)) == 64


def test_http_fingerprint_covers_url_and_headers() -> None:
    http = HttpServerSpec(name="r", url="https://a.example/mcp", provenance=WS, headers=(("X", "1"),))
    assert launch_fingerprint(http) != launch_fingerprint(
        dataclasses.replace(http, url="https://b.example/mcp")
    )
    assert launch_fingerprint(http) != launch_fingerprint(dataclasses.replace(http, headers=(("X", "2"),)))


def test_trust_states() -> None:
    assert trust_state(BASE, None) == "never_approved"
    assert trust_state(BASE, launch_fingerprint(BASE)) == "approved"
    assert trust_state(BASE, "0" * 64) == "changed"


def test_only_workspace_servers_need_launch_approval() -> None:
    assert needs_launch_approval(BASE)
    assert not needs_launch_approval(
        dataclasses.replace(BASE, provenance=Provenance("user", "/u/settings.json"))
    )


words = st.text(max_size=10)


@given(
    words,
    st.lists(words, max_size=4),
    st.dictionaries(words, words, max_size=3),
    words,
    st.lists(words, max_size=4),
    st.dictionaries(words, words, max_size=3),
)
def test_property_fingerprints_differ_exactly_when_launches_differ(
    c1: str, a1: list[str], e1: dict[str, str], c2: str, a2: list[str], e2: dict[str, str]
) -> None:
    one = StdioServerSpec(name="s", command=c1, args=tuple(a1), env=tuple(e1.items()), provenance=WS)
    two = StdioServerSpec(name="s", command=c2, args=tuple(a2), env=tuple(e2.items()), provenance=WS)
    same = (c1, a1, e1) == (c2, a2, e2)
    assert (launch_fingerprint(one) == launch_fingerprint(two)) == same


# --- facts: the program and the workspace files a repository's launch runs -------------------------

FACTS = LaunchFacts("/usr/bin/python3", (("lib.py", "b" * 64), ("server.py", "a" * 64)))


def _approved(facts: LaunchFacts = FACTS) -> ApprovedLaunch:
    return approved_launch(BASE, facts)


@pytest.mark.parametrize(
    ("now", "change"),
    [
        (
            dataclasses.replace(FACTS, files=(("lib.py", "b" * 64), ("server.py", "c" * 64))),
            "server.py changed",
        ),
        (
            dataclasses.replace(FACTS, files=(("lib.py", "b" * 64), ("server.py", MISSING))),
            "server.py was removed",
        ),
        (dataclasses.replace(FACTS, files=(*FACTS.files, ("mod.py", "d" * 64))), "mod.py appeared"),
        (dataclasses.replace(FACTS, program="/repo/python3"), "npx now resolves to /repo/python3"),
        (dataclasses.replace(FACTS, program=None), "npx now resolves to nothing (not found)"),
        (
            LaunchFacts("/usr/bin/python3", tuple((f"f{i}.py", str(i)) for i in range(5))),
            "f0.py appeared, f1.py appeared, f2.py appeared, 4 more files changed",
        ),
    ],
)
def test_a_change_in_what_runs_is_named(now: LaunchFacts, change: str) -> None:
    assert launch_fingerprint(BASE, now) != launch_fingerprint(BASE, FACTS)
    assert check_trust(BASE, now, _approved()) == TrustCheck("changed", change)


def test_a_change_to_the_text_is_a_command_change_whatever_the_files() -> None:
    moved = dataclasses.replace(BASE, args=(*BASE.args, "--x"))
    assert check_trust(moved, FACTS, _approved()) == TrustCheck("changed", "command changed")


def test_the_same_text_and_files_are_approved() -> None:
    assert check_trust(BASE, FACTS, _approved()) == TrustCheck("approved")
    assert check_trust(BASE, FACTS, None) == TrustCheck("never_approved")


def test_an_approval_from_before_facts_asks_once_more_and_says_why() -> None:
    old = ApprovedLaunch(launch_fingerprint(BASE))
    assert check_trust(BASE, FACTS, old) == TrustCheck("changed", OLD_APPROVAL)
    assert check_trust(dataclasses.replace(BASE, command="x"), FACTS, old).change == "command changed"
    assert check_trust(BASE, None, old) == TrustCheck("approved")  # HTTP and the like: the text is all


def test_facts_are_part_of_the_fingerprint_but_the_text_alone_is_kept_apart() -> None:
    assert launch_fingerprint(BASE, FACTS) != launch_fingerprint(BASE)
    assert launch_fingerprint(BASE, LaunchFacts()) != launch_fingerprint(BASE)
    assert _approved().command == launch_fingerprint(BASE)


def test_an_approval_from_before_imports_were_checked_asks_once_more_and_says_why() -> None:
    """Files the approval did not list (what the script can import, checked since) are no change of
    theirs; a file it did list that changed is still named."""
    old = dataclasses.replace(_approved(), imports=False)
    more = LaunchFacts(FACTS.program, (*FACTS.files, ("helper.py", "c" * 64)))
    assert check_trust(BASE, more, old) == TrustCheck("changed", OLD_APPROVAL)
    assert check_trust(BASE, more, _approved()) == TrustCheck("changed", "helper.py appeared")
    edited = LaunchFacts(
        FACTS.program, (("lib.py", "b" * 64), ("server.py", "d" * 64), ("helper.py", "c" * 64))
    )
    assert check_trust(BASE, edited, old) == TrustCheck("changed", "helper.py appeared, server.py changed")
