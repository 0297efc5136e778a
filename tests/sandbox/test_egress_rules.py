"""What the egress proxy lets through. Load-bearing direction: a host off the list, a listed host
on another port, a name that only looks like a listed one, and a default or wildcard entry
resolving to a local address or one of this machine's own are all refused. The second corpus: a
listed host on its ports, a name below a wildcard at a public address, and a listed host at
whatever address the user chose are let through."""

from __future__ import annotations

import pytest

from levelcode.sandbox.egress_rules import (
    NOT_LISTED,
    EgressRules,
    refusal_line,
    usable_addresses,
)

RULES = EgressRules.from_texts(
    listed=["api.example.com", "127.0.0.1:4873", "intranet.corp", "*.cdn.example"],
    public=["registry.npmjs.org", "pypi.org"],
)

REFUSED = [
    ("evil.example", 443),
    ("api.example.com", 22),
    ("api.example.com.evil.example", 443),
    ("xapi.example.com", 443),
    ("127.0.0.1", 443),
    ("127.0.0.1", 4874),
    ("localhost", 4873),
    ("\u0430pi.example.com", 443),  # a Cyrillic lookalike
    ("cdn.example", 443),  # the wildcard's own domain is not below it
    ("not a host", 443),
    ("", 443),
]
ADMITTED = [
    ("api.example.com", 443, "any"),
    ("API.EXAMPLE.COM.", 80, "any"),
    ("127.0.0.1", 4873, "any"),
    ("intranet.corp", 443, "any"),
    ("img.cdn.example", 443, "public"),  # a wildcard: public addresses only
    ("registry.npmjs.org", 443, "public"),  # a default: public addresses only
]


@pytest.mark.parametrize(("host", "port"), REFUSED)
def test_what_is_off_the_list_is_refused(host: str, port: int) -> None:
    assert RULES.reach(host, port) is None


@pytest.mark.parametrize(("host", "port", "reach"), ADMITTED)
def test_what_is_on_the_list_is_let_through(host: str, port: int, reach: str) -> None:
    assert RULES.reach(host, port) == reach


def test_a_public_entry_never_reaches_a_local_address_or_this_machines_own() -> None:
    addresses = ["127.0.0.1", "10.0.0.2", "::ffff:192.168.0.1", "169.254.169.254", "2a0f::10"]
    own = {"2a0f::10"}.__contains__  # a global IPv6 address of this machine's
    assert usable_addresses(addresses, "public", own) == []
    assert usable_addresses([*addresses, "8.8.8.8"], "public", own) == ["8.8.8.8"]
    assert usable_addresses(addresses, "any", own) == addresses


def test_an_entry_the_user_listed_also_as_a_default_keeps_any_address() -> None:
    rules = EgressRules.from_texts(listed=["registry.npmjs.org"], public=["registry.npmjs.org"])
    assert rules.reach("registry.npmjs.org", 443) == "any"


def test_the_refusal_line_names_the_host_and_how_to_allow_it() -> None:
    line = refusal_line("evil.example", 443, NOT_LISTED, 'add "{host}" to your list')
    assert line == (
        '[sandbox] refused a connection to evil.example:443: not on the network list; add "evil.example" '
        "to your list"
    )
    line = refusal_line("::1", 8080, NOT_LISTED, "allow {host}")
    assert line.endswith("allow [::1]:8080")
    assert "[::1]:8080:" in line


def test_the_refusal_line_shows_the_sandboxs_text_escaped() -> None:
    line = refusal_line("evil\x1b[2J\nhost", 443, NOT_LISTED, "{host}")
    assert "\x1b" not in line
    assert "\n" not in line
    assert "\\x1b[2J\\nhost" in line
