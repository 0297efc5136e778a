"""A remote server reached over plain `http://` is named on its launch card. Load-bearing direction:
every URL in the first corpus — `http://` to a host that is not this machine, however it is spelled
— puts the plaintext line among the card's decisive lines (which stay on screen) and in its body.
The second corpus must pass quietly: `https://`, and `http://` to loopback (nothing leaves the
machine), carry no such line."""

from __future__ import annotations

from pathlib import Path

import pytest

from levelcode.mcp.config.specs import HttpServerSpec, Provenance
from levelcode.mcp.launch.card_summary import PLAINTEXT_NOTE
from levelcode.mcp.launch.launch_card import launch_card
from levelcode.mcp.launch.trust import LaunchReview, TrustCheck

REPO = Provenance("workspace", "/repo/.mcp.json")

PLAINTEXT = [
    "http://mcp.example.com/mcp",
    "HTTP://MCP.EXAMPLE.COM/mcp",
    "http://10.0.0.5:8080/mcp",
    "http://192.168.1.2/mcp",
    "http://[2001:db8::1]/mcp",
    "http://localhost.evil.example/mcp",
    "http://127.0.0.1.nip.io/mcp",
    "http://user:pw@mcp.example.com/mcp",
]
QUIET = [
    "https://mcp.example.com/mcp",
    "HTTPS://mcp.example.com/mcp",
    "http://127.0.0.1:3000/mcp",
    "http://127.8.9.10/mcp",
    "http://localhost:3000/mcp",
    "http://LOCALHOST/mcp",
    "http://api.localhost/mcp",
    "http://[::1]:3000/mcp",
]


def card_for(url: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    spec = HttpServerSpec("remote", url, REPO)
    card = launch_card(LaunchReview(spec, None, TrustCheck("never_approved")), Path("/repo"))
    return card.summary, card.body


@pytest.mark.parametrize("url", PLAINTEXT)
def test_plain_http_to_another_machine_is_named_among_the_decisive_lines(url: str) -> None:
    summary, body = card_for(url)
    assert any(PLAINTEXT_NOTE in line for line in summary), summary
    assert any(PLAINTEXT_NOTE in line for line in body), body


@pytest.mark.parametrize("url", QUIET)
def test_https_and_loopback_carry_no_plaintext_line(url: str) -> None:
    summary, body = card_for(url)
    assert not any(PLAINTEXT_NOTE in line for line in (*summary, *body))
